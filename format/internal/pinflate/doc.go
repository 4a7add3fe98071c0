// Package pinflate inflates one deflate stream (RFC 1951) on several
// cores. The compressed input is cut into chunks; a worker per chunk
// looks for the first bit offset in its chunk where a dynamic-Huffman
// block header is valid, and decodes from there before the previous
// chunk is known. Bytes it copies from the unknown 32 KiB before its
// start are kept as markers (16-bit symbols naming a window position)
// until the previous chunk ends; then they are replaced by the real
// bytes. A chunk is only used when the chunk before it, decoded to its
// end, stops exactly at the block where the chunk's worker started;
// otherwise that range is decoded again from the verified position, so
// a wrong guess costs time, never a wrong byte.
//
// The decoder is only as strict as it must be to never accept a stream
// that klauspost/compress/flate rejects; whatever it cannot decode, the
// caller decodes again with that package (Reader reports ErrFallback).
//
// pinflate knows deflate and nothing of gzip or profiles.
package pinflate
