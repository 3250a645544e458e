package prior

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
)

// stFile writes a safetensors file whose header is hdr as it stands and
// whose data is data (prior-carriage §9.1: u64 N, N bytes of header).
func stFile(hdr string, data []byte) []byte {
	out := binary.LittleEndian.AppendUint64(nil, uint64(len(hdr)))
	return append(append(out, hdr...), data...)
}

// sha is the lower-case hex SHA-256 of b, as the corpus names files.
func sha(b []byte) string {
	h := sha256.Sum256(b)
	return hex.EncodeToString(h[:])
}
