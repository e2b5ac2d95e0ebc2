package digest

// Hex digits of names the store lists and entries it writes are decoded
// here, in one pass and without allocating: listing 100,000 packs handles
// 300,000 digests, within the 0.3 s that docs/performance.md ("Log",
// scripts/bench-log.sh) measures. Unlike Parse, FromLowerHex accepts only
// lowercase digits, as the store writes them.

const hexDigits = "0123456789abcdef"

// lowerUnhex maps a lowercase hex digit to its value, anything else to
// 0xff.
var lowerUnhex = func() (t [256]byte) {
	for i := range t {
		t[i] = 0xff
	}
	for i := range 16 {
		t[hexDigits[i]] = byte(i)
	}
	return t
}()

// FromLowerHex decodes src, HexSize lowercase hex digits and nothing
// else, into d and reports whether it was such.
func FromLowerHex(d *Digest, src []byte) bool {
	if len(src) != HexSize {
		return false
	}
	var bad byte
	for i := range d {
		hi, lo := lowerUnhex[src[2*i]], lowerUnhex[src[2*i+1]]
		bad |= hi | lo
		d[i] = hi<<4 | lo&0x0f
	}
	return bad&0xf0 == 0
}
