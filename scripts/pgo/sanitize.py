#!/usr/bin/env python3
"""Rewrite a pprof profile so that it names no path of the machine it was
taken on: every string of its string table that is an absolute path becomes
its last element (the profiled binary's file name). Go's profile-guided
optimisation matches functions by name and call sites by line offset, so the
paths carry nothing it uses. Standard library only: the profile is a gzipped
protobuf whose string table is top-level field 6 (profile.proto).
    sanitize.py IN OUT
"""
import gzip
import sys


def varint(buf, i):
    v, shift = 0, 0
    while True:
        b = buf[i]
        i += 1
        v |= (b & 0x7F) << shift
        if b < 0x80:
            return v, i
        shift += 7


def put_varint(v):
    out = bytearray()
    while True:
        b = v & 0x7F
        v >>= 7
        if v:
            out.append(b | 0x80)
        else:
            out.append(b)
            return bytes(out)


def main():
    if len(sys.argv) != 3:
        sys.exit("usage: sanitize.py IN OUT")
    buf = gzip.decompress(open(sys.argv[1], "rb").read())
    out, i, changed = bytearray(), 0, 0
    while i < len(buf):
        start = i
        key, i = varint(buf, i)
        field, wire = key >> 3, key & 7
        if wire == 0:
            _, i = varint(buf, i)
        elif wire == 1:
            i += 8
        elif wire == 5:
            i += 4
        elif wire == 2:
            n, j = varint(buf, i)
            i = j + n
            if field == 6:
                s = buf[j:i].decode("utf-8", "replace")
                if s.startswith("/"):
                    s = s.rstrip("/").rsplit("/", 1)[-1]
                    data = s.encode()
                    out += put_varint(key) + put_varint(len(data)) + data
                    changed += 1
                    continue
        else:
            sys.exit(f"sanitize.py: wire type {wire} at byte {start}: not a pprof profile")
        out += buf[start:i]
    open(sys.argv[2], "wb").write(gzip.compress(bytes(out), mtime=0))
    print(f"sanitize.py: {changed} paths shortened", file=sys.stderr)


main()
