"""Hostile UDP datagrams for the media port: STUN-, RTP-, RTCP- and DTLS-shaped, and noise.

Each kind is close enough to the real thing to pass the first-byte demultiplexing (RFC 7983)
and reach the parser behind it. Everything is built from a seeded random generator, so a
failing run can be replayed with the same seed.
"""

import random
import struct
import zlib

MAGIC_COOKIE = 0x2112A442


def _stun(rng: random.Random, server_ufrag: str | None) -> bytes:
    msg_type = rng.choice([0x0001, 0x0001, 0x0101, 0x0111, 0x0011, rng.randrange(0, 0x4000)])
    attrs = b""
    for _ in range(rng.randrange(0, 6)):
        kind = rng.choice([0x0006, 0x0008, 0x8028, 0x0024, 0x8029, 0x802A, 0x0025, rng.randrange(0, 0x10000)])
        if kind == 0x0006:
            ufrag = server_ufrag if server_ufrag and rng.random() < 0.7 else "x" * rng.randrange(0, 40)
            value = f"{ufrag}:{rng.randrange(1 << 32):08x}".encode()
        else:
            value = rng.randbytes(rng.choice([0, 1, 4, 8, 20, rng.randrange(0, 300)]))
        declared = len(value) if rng.random() < 0.8 else rng.randrange(0, 0x10000)  # sometimes a lie
        attrs += struct.pack("!HH", kind, declared) + value + b"\0" * (-len(value) % 4)
    length = len(attrs) if rng.random() < 0.8 else rng.randrange(0, 0x10000)
    header = struct.pack("!HHI", msg_type, length & 0xFFFF, MAGIC_COOKIE) + rng.randbytes(12)
    packet = header + attrs
    if rng.random() < 0.5:  # a correct FINGERPRINT, so the message gets past that check
        with_fp_len = struct.pack("!H", (len(attrs) + 8) & 0xFFFF)
        body = packet[:2] + with_fp_len + packet[4:]
        crc = (zlib.crc32(body) ^ 0x5354554E) & 0xFFFFFFFF
        packet = body + struct.pack("!HHI", 0x8028, 4, crc)
    return packet


def _rtp(rng: random.Random) -> bytes:
    first = 0x80 | rng.choice([0, 0x10, 0x20, 0x0F, rng.randrange(0, 0x40)])  # extension, padding, csrcs
    pt = rng.choice([96, 97, 111, 100, 0x80 | 96, rng.randrange(0, 128)])
    header = struct.pack("!BBHII", first, pt, rng.randrange(0x10000), rng.randrange(1 << 32), rng.randrange(1 << 32))
    if first & 0x10 and rng.random() < 0.7:
        words = rng.randrange(0, 8)
        header += struct.pack("!HH", rng.choice([0xBEDE, 0x1000, rng.randrange(0x10000)]), words)
        header += rng.randbytes(words * 4 if rng.random() < 0.8 else rng.randrange(0, 40))
    return header + rng.randbytes(rng.randrange(0, 1200))


def _rtcp(rng: random.Random) -> bytes:
    first = 0x80 | rng.randrange(0, 0x40)
    pt = rng.choice([200, 201, 202, 203, 204, 205, 206, 207, rng.randrange(192, 224)])
    length_words = rng.randrange(0, 40)
    body = rng.randbytes(rng.choice([length_words * 4, rng.randrange(0, 200)]))
    return struct.pack("!BBH", first, pt, length_words) + body


def _dtls(rng: random.Random) -> bytes:
    content = rng.choice([22, 22, 20, 21, 23, rng.randrange(20, 64)])
    version = rng.choice([0xFEFD, 0xFEFF, rng.randrange(0x10000)])
    body = b""
    if content == 22 and rng.random() < 0.7:  # a handshake header: ClientHello and friends
        hs_type = rng.choice([1, 2, 11, 12, 14, 16, 20, rng.randrange(256)])
        hs_len = rng.randrange(0, 400)
        fragment = rng.randbytes(rng.randrange(0, 400))
        frag_len = len(fragment) if rng.random() < 0.7 else rng.randrange(0, 1 << 24)
        body = (struct.pack("!B", hs_type) + hs_len.to_bytes(3, "big") + struct.pack("!H", rng.randrange(0x10000))
                + rng.randrange(0, 400).to_bytes(3, "big") + frag_len.to_bytes(3, "big") + fragment)
    else:
        body = rng.randbytes(rng.randrange(0, 600))
    length = len(body) if rng.random() < 0.8 else rng.randrange(0x10000)
    return (struct.pack("!BH", content, version) + struct.pack("!H", rng.randrange(4)) + rng.randbytes(6)
            + struct.pack("!H", length) + body)


def _noise(rng: random.Random) -> bytes:
    return rng.randbytes(rng.choice([0, 1, 2, 3, 4, 12, 20, rng.randrange(0, 1500)]))


def hostile_datagrams(seed: int, count: int, server_ufrag: str | None = None) -> list[bytes]:
    rng = random.Random(seed)
    makers = [lambda: _stun(rng, server_ufrag), lambda: _rtp(rng), lambda: _rtcp(rng), lambda: _dtls(rng),
              lambda: _noise(rng)]
    return [makers[i % len(makers)]() for i in range(count)]
