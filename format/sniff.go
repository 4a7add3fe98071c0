package format

import (
	"bytes"
	"io"
	"os"
	"strings"

	"github.com/klauspost/compress/gzip"
	"google.golang.org/protobuf/encoding/protowire"
)

// sniffBytes is how much of a file Sniff reads, and how much of a gzip
// stream it inflates: the decoders' formats tell from their first line or
// first fields.
const sniffBytes = 4096

// SniffFile reports which profile format the file at path holds, reading
// only its first bytes (see Sniff): "" when none is recognised.
func SniffFile(path string) (string, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", err
	}
	defer f.Close()
	return SniffReader(f)
}

// SniffReader is SniffFile for an open file (or any reader at the start
// of one): it reads only the first bytes.
func SniffReader(r io.Reader) (string, error) {
	head := make([]byte, sniffBytes)
	n, err := io.ReadFull(r, head)
	if err != nil && err != io.ErrUnexpectedEOF && err != io.EOF {
		return "", err
	}
	head = head[:n]
	if n < sniffBytes && n > 0 && head[n-1] != '\n' && (n < 2 || head[0] != 0x1f || head[1] != 0x8b) {
		// The whole file, whose last line is complete: say so, or a
		// line of text would pass for folded stacks still coming.
		head = append(head, '\n')
	}
	return Sniff(head), nil
}

// Sniff names the profile format the input starting with head is in, as
// a person would call it ("profile.proto", "gperftools CPU", "legacy
// contention", "folded stacks"), or returns "" when no decoder would
// take it. head is the input's first bytes, gzipped or not; gzip is
// inflated as far as head goes. It is stricter than Parse about
// profile.proto, whose first byte alone many binary files pass: the
// fields in head must be profile.proto's, each with its wire type.
func Sniff(head []byte) string {
	gz := ""
	if len(head) >= 2 && head[0] == 0x1f && head[1] == 0x8b {
		r, err := gzip.NewReader(bytes.NewReader(head))
		if err != nil {
			return ""
		}
		inflated := make([]byte, sniffBytes)
		n, _ := io.ReadFull(r, inflated)
		head, gz = inflated[:n], ", gzip"
	}
	if len(head) == 0 {
		return ""
	}
	// The formats Parse tries, in its order (memoryFormats).
	for _, f := range memoryFormats {
		if !f.sniff(head) {
			continue
		}
		if f.label == "legacy text" {
			return "legacy " + legacyTextKind(head) + gz
		}
		return f.label + gz
	}
	if plausibleProto(head) {
		return "profile.proto" + gz
	}
	return ""
}

// legacyTextKind names a legacy text profile by its header line.
func legacyTextKind(head []byte) string {
	r := lineReader{data: head}
	for l, ok := r.next(); ok; l, ok = r.next() {
		if blankOrComment(l) {
			continue
		}
		switch {
		case heapKind(l) != "":
			return heapKind(l)
		case isContentionHeader(l):
			return "contention"
		}
		for _, kind := range []string{"heap", "thread", "goroutine", "contention", "mutex", "block"} {
			if strings.Contains(l, kind) {
				return kind
			}
		}
		break
	}
	return "text"
}

// protoWire is the wire type of each profile.proto field (1 to 14).
var protoWire = [15]protowire.Type{
	1: protowire.BytesType, 2: protowire.BytesType, 3: protowire.BytesType,
	4: protowire.BytesType, 5: protowire.BytesType, 6: protowire.BytesType,
	7: protowire.VarintType, 8: protowire.VarintType, 9: protowire.VarintType,
	10: protowire.VarintType, 11: protowire.BytesType, 12: protowire.VarintType,
	13: protowire.VarintType, 14: protowire.VarintType,
}

// plausibleProto reports whether head reads as the start of a
// profile.proto message: top-level fields of profile.proto's numbers and
// wire types (comment, 13, may be packed), up to where head ends.
func plausibleProto(head []byte) bool {
	if !looksLikeProto(head) || looksLikeText(head) {
		return false
	}
	for fields := 0; len(head) > 0; fields++ {
		num, typ, n := protowire.ConsumeTag(head)
		if n < 0 {
			return fields > 0 && len(head) < 10 // a tag cut by the head's end
		}
		if num < 1 || num > 14 || typ != protoWire[num] && !(num == 13 && typ == protowire.BytesType) {
			return false
		}
		head = head[n:]
		if typ == protowire.BytesType {
			l, n := protowire.ConsumeVarint(head)
			if n < 0 {
				return len(head) < 10
			}
			if l > uint64(len(head)-n) {
				return true // runs past the head
			}
			head = head[n+int(l):]
		} else {
			_, n := protowire.ConsumeVarint(head)
			if n < 0 {
				return len(head) < 10
			}
			head = head[n:]
		}
	}
	return true
}
