// Package archtest holds the tests of the module's import rules (which
// package may import which); it has no code of its own.
package archtest
