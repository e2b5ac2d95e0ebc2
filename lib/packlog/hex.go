package packlog

// Hex digits are decoded here, in one pass and without allocating:
// listing 100,000 packs handles 300,000 digests, within the 0.3 s that
// docs/performance.md ("Log", scripts/bench-log.sh) measures. Unlike
// hex.Decode, decodeHex accepts only lowercase digits, as the store writes
// them.

const hexDigits = "0123456789abcdef"

// unhex maps a lowercase hex digit to its value, anything else to 0xff.
var unhex = func() (t [256]byte) {
	for i := range t {
		t[i] = 0xff
	}
	for i := range 16 {
		t[hexDigits[i]] = byte(i)
	}
	return t
}()

// decodeHex decodes src, lowercase hex of length 2·len(dst), into dst and
// reports whether it was.
func decodeHex(dst, src []byte) bool {
	if len(src) != 2*len(dst) {
		return false
	}
	var bad byte
	for i := range dst {
		hi, lo := unhex[src[2*i]], unhex[src[2*i+1]]
		bad |= hi | lo
		dst[i] = hi<<4 | lo&0x0f
	}
	return bad&0xf0 == 0
}
