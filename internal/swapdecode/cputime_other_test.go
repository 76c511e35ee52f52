//go:build !unix

package swapdecode

func processCPU() int64 { return 0 }
