//go:build !unix

package main

// openFileLimit is a conservative guess where no limit can be read.
func openFileLimit() uint64 { return 1024 }
