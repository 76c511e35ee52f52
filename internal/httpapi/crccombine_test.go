package httpapi

import (
	"hash/crc32"
	"hash/crc64"
	"math/rand/v2"
	"testing"
)

// Combined CRCs equal the CRC of the concatenation, for both widths and
// lengths from empty to several blocks.
func TestCRCCombine(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	lens := []int{0, 1, 2, 7, 8, 63, 64, 65, 1000, 4096, 65537}
	for _, la := range lens {
		for _, lb := range lens {
			a, b := make([]byte, la), make([]byte, lb)
			for i := range a {
				a[i] = byte(rng.Uint32())
			}
			for i := range b {
				b[i] = byte(rng.Uint32())
			}
			ab := append(append([]byte{}, a...), b...)
			if got, want := crc64Shift.combine(crc64.Checksum(a, crcTable), crc64.Checksum(b, crcTable), crc64Shift.shift(lb)),
				crc64.Checksum(ab, crcTable); got != want {
				t.Errorf("crc64 %d+%d: %x, want %x", la, lb, got, want)
			}
			got := uint32(crc32Shift.combine(uint64(crc32.ChecksumIEEE(a)), uint64(crc32.ChecksumIEEE(b)), crc32Shift.shift(lb)))
			if want := crc32.ChecksumIEEE(ab); got != want {
				t.Errorf("crc32 %d+%d: %x, want %x", la, lb, got, want)
			}
		}
	}
}
