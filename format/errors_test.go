package format

import (
	"bytes"
	"errors"
	"strings"
	"testing"

	"github.com/klauspost/compress/gzip"
	"google.golang.org/protobuf/encoding/protowire"
)

// pb builds profile.proto bytes for tests, field by field.
type pb []byte

func (b pb) varint(num protowire.Number, v uint64) pb {
	b = protowire.AppendTag(b, num, protowire.VarintType)
	return protowire.AppendVarint(b, v)
}

func (b pb) msg(num protowire.Number, m pb) pb {
	b = protowire.AppendTag(b, num, protowire.BytesType)
	return protowire.AppendBytes(b, m)
}

func (b pb) str(s string) pb { return b.msg(6, pb(s)) }

func (b pb) packed(num protowire.Number, vs ...uint64) pb {
	var inner []byte
	for _, v := range vs {
		inner = protowire.AppendVarint(inner, v)
	}
	return b.msg(num, inner)
}

// minimal is a valid profile: one sample type (samples/count), one
// sample at location 1 in function 1 ("main").
func minimal() pb {
	return pb(nil).
		msg(1, pb(nil).varint(1, 1).varint(2, 2)).
		msg(2, pb(nil).packed(1, 1).packed(2, 5)).
		msg(4, pb(nil).varint(1, 1).msg(4, pb(nil).varint(1, 1))).
		msg(5, pb(nil).varint(1, 1).varint(2, 3)).
		str("").str("samples").str("count").str("main")
}

func gz(b []byte) []byte {
	var buf bytes.Buffer
	w := gzip.NewWriter(&buf)
	w.Write(b)
	w.Close()
	return buf.Bytes()
}

// TestDocURL: doc_url (field 15) survives decoding and writing, and
// go tool pprof prints it as "Doc:" (checked in analysis/report).
func TestDocURL(t *testing.T) {
	data := append(minimal().str("https://example.com/docs"), pb(nil).varint(15, 4)...)
	p, err := Parse(bytes.NewReader(data), Options{})
	if err != nil {
		t.Fatal(err)
	}
	if p.DocURL != "https://example.com/docs" {
		t.Fatalf("DocURL %q", p.DocURL)
	}
	var buf bytes.Buffer
	if err := Write(&buf, p); err != nil {
		t.Fatal(err)
	}
	q, err := Parse(&buf, Options{})
	if err != nil || q.DocURL != p.DocURL {
		t.Fatalf("after writing: %v %q", err, q.DocURL)
	}
}

func TestMinimalProfile(t *testing.T) {
	p, err := Parse(bytes.NewReader(gz(minimal())), Options{})
	if err != nil {
		t.Fatal(err)
	}
	if p.Samples.Len() != 1 || p.Total(0) != 5 || p.Functions[0].Name != "main" {
		t.Fatalf("decoded %+v", p)
	}
}

// TestDecodeErrors checks that each broken rule of profile.proto yields
// its own error naming the message, its index and the bad value.
func TestDecodeErrors(t *testing.T) {
	st := pb(nil).msg(1, pb(nil).varint(1, 1).varint(2, 2))
	strs := pb(nil).str("").str("samples").str("count").str("main")
	fn := pb(nil).msg(5, pb(nil).varint(1, 1).varint(2, 3))
	loc := pb(nil).msg(4, pb(nil).varint(1, 1).msg(4, pb(nil).varint(1, 1)))
	sample := func(locs ...uint64) pb { return pb(nil).msg(2, pb(nil).packed(1, locs...).packed(2, 5)) }
	cat := func(parts ...pb) []byte {
		var out []byte
		for _, p := range parts {
			out = append(out, p...)
		}
		return out
	}
	zeros := make([]byte, 8<<20)
	for _, c := range []struct {
		name string
		data []byte
		opt  Options
		want string
	}{
		{"empty", nil, Options{}, "empty profile"},
		{"empty gzip", gz(nil), Options{}, "empty profile"},
		{"text", []byte("this is not a profile, just some text\n"), Options{}, "unrecognized profile format: tried gzip, profile.proto"},
		{"missing location", cat(st, sample(1, 99), loc, fn, strs), Options{}, "sample 0: location_id 99 has no Location"},
		{"location id 0", cat(st, sample(0), loc, fn, strs), Options{}, "sample 0: location_id 0"},
		{"duplicate location", cat(st, sample(1), loc, loc, fn, strs), Options{}, "duplicate id 1"},
		{"missing function", cat(st, sample(1), pb(nil).msg(4, pb(nil).varint(1, 1).msg(4, pb(nil).varint(1, 7))), fn, strs), Options{}, "function_id 7 has no Function"},
		{"missing mapping", cat(st, sample(1), pb(nil).msg(4, pb(nil).varint(1, 1).varint(2, 3)), fn, strs), Options{}, "mapping_id 3 has no Mapping"},
		{"values", cat(st, pb(nil).msg(2, pb(nil).packed(1, 1).packed(2, 5, 6)), loc, fn, strs), Options{}, "sample 0: 2 values, want 1 (one per sample_type)"},
		{"values later", cat(st, sample(1), pb(nil).msg(2, pb(nil).packed(1, 1)), loc, fn, strs), Options{}, "sample 1: 0 values, want 1"},
		{"string_table[0]", cat(st, sample(1), loc, fn, pb(nil).str("x").str("samples").str("count").str("main")), Options{}, `string_table[0] is "x", want ""`},
		{"no strings", cat(st), Options{}, "string_table is empty"},
		{"string index", cat(st, sample(1), loc, pb(nil).msg(5, pb(nil).varint(1, 1).varint(2, 1000)), strs), Options{}, "function 0 (id 1) name: string index 1000 out of range (string_table has 4 entries)"},
		{"default type", cat(st, sample(1), loc, fn, strs, pb(nil).varint(14, 3)), Options{}, `default_sample_type "main" names no sample_type`},
		{"drop_frames regexp", cat(st, sample(1), loc, fn, strs, pb(nil).str("(").varint(7, 4)), Options{}, `drop_frames "(" is not a valid regexp`},
		{"label str and num", cat(st, pb(nil).msg(2, pb(nil).packed(1, 1).packed(2, 5).msg(3, pb(nil).varint(1, 1).varint(2, 2).varint(3, 4))), loc, fn, strs), Options{}, "sample 0: label 0: has both str and num"},
		{"truncated message", cat(st, sample(1), loc, fn, strs)[:20], Options{}, "unexpected end of data"},
		{"truncated gzip", gz(cat(st, sample(1), loc, fn, strs))[:30], Options{}, "gzip"},
		{"bad wire type", cat(st, pb(nil).varint(2, 5), loc, fn, strs), Options{}, "sample at byte"},
		{"zip bomb", gz(cat(st, pb(nil).str(string(zeros)))), Options{MaxBytes: 1 << 20}, "exceeds the size limit"},
		{"gzip CRC", flip(gz(cat(st, sample(1), loc, fn, strs)), -8), Options{}, "gzip: the data does not match its CRC-32 or length"},
		{"gzip length", flip(gz(cat(st, sample(1), loc, fn, strs)), -1), Options{}, "gzip: the data does not match its CRC-32 or length"},
		{"gzip trailing garbage", append(gz(cat(st, sample(1), loc, fn, strs)), "garbage!"...), Options{}, "gzip: trailing garbage after the compressed data"},
		{"gzip trailing zeros", append(gz(cat(st, sample(1), loc, fn, strs)), 0, 0, 0, 0), Options{}, "gzip: trailing garbage"},
		{"gzip text CRC", flip(gz([]byte("main;a 1\n")), -8), Options{}, "gzip: the data does not match its CRC-32 or length"},
		{"short folded, negative", []byte("a;b -5\n"), Options{}, "folded stacks: line 1: negative count -5"},
		{"short folded, too large", []byte("a 99999999999999999999"), Options{}, "folded stacks: line 1: count 99999999999999999999 is past the int64 range"},
		{"short text", []byte("hello\n"), Options{}, "unrecognized profile format"},
		{"short words", []byte("a b"), Options{}, "folded stacks: line 1: want"},
	} {
		_, err := Parse(bytes.NewReader(c.data), c.opt)
		if err == nil {
			t.Errorf("%s: no error", c.name)
			continue
		}
		if !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error %q, want it to contain %q", c.name, err, c.want)
		}
		if c.name == "zip bomb" && !errors.Is(err, ErrTooLarge) {
			t.Errorf("zip bomb: %v is not ErrTooLarge", err)
		}
	}
}

// flip returns data with the byte at i (from the end if negative) inverted.
func flip(data []byte, i int) []byte {
	data = bytes.Clone(data)
	if i < 0 {
		i += len(data)
	}
	data[i] ^= 0xff
	return data
}
