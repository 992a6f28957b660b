#!/usr/bin/env python3
"""Read an npuzzle pattern database (format versions 1 to 3,
docs/pdb-format.md), zero-aware or not, and look boards up in it. Standard
library only.

Usage:
    read_pdb.py TABLE.pdb                      print the header
    read_pdb.py TABLE.pdb BOARD [BOARD ...]    print the table's value for each
                                               board (n*n numbers, 0 = blank,
                                               separated by spaces or commas)

TABLE.pdb is an unpacked table: the cache/ file next to a .pdb.zst, which
`npuzzle` writes on the first open (Python's standard library has no zstd).
The file is memory-mapped, not read: a lookup touches one page of it.
Exit status: 0 done, 1 unusable table, 2 bad board or arguments.
"""

import mmap
import os
import struct
import sys
import zlib

MAGIC = b"npuzzle-pdb\0\0\0\0\0"
HEADER_LEN = 4096


ZSTD_MAGIC = b"\x28\xb5\x2f\xfd"


class PdbError(Exception):
    """The file is not a usable table."""


class BoardError(ValueError):
    """The numbers given are not a board for this table."""


def unpacked_hint(path):
    """What to pass instead of a packed .pdb.zst file."""
    directory, name = os.path.split(path)
    unpacked = os.path.join(directory, "cache", name[:-4] if name.endswith(".zst") else name)
    if os.path.isfile(unpacked):
        return f"pass its unpacked copy instead: {unpacked}"
    return (f"pass its unpacked copy, {unpacked}, which npuzzle writes on the first "
            f"open (run `npuzzle pdb lookup --pdb-dir {directory or '.'} BOARD` once)")


class Pdb:
    def __init__(self, path):
        with open(path, "rb") as f:
            if f.read(4) == ZSTD_MAGIC:
                raise PdbError(f"{path} is compressed with zstd, which Python's standard "
                               f"library cannot read; {unpacked_hint(path)}")
            f.seek(0, os.SEEK_END)
            if f.tell() == 0:
                raise PdbError(f"{path}: empty file, not an npuzzle pattern database")
            data = mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_READ)
        if data[:16] != MAGIC:
            raise PdbError(f"{path}: not an npuzzle pattern database")
        if len(data) < HEADER_LEN:
            raise PdbError(f"{path}: truncated header")
        (marker, version) = struct.unpack_from("<IH", data, 16)
        if marker != 0x0A0B0C0D:
            raise PdbError(f"{path}: unknown byte order")
        if version not in (1, 2, 3):
            raise PdbError(f"{path}: format version {version}; this reader reads 1 to 3")
        header = bytearray(data[:HEADER_LEN])
        (stored_crc,) = struct.unpack_from("<I", header, 60)
        header[60:64] = b"\0\0\0\0"
        if zlib.crc32(bytes(header)) != stored_crc:
            raise PdbError(f"{path}: header CRC mismatch")
        self.n, goal, k, scheme, encoding, self.max_value = struct.unpack_from("<6B", data, 24)
        if scheme not in (1, version) or encoding not in (1, 2):
            raise PdbError(f"{path}: unknown index scheme {scheme} or encoding {encoding}")
        # Zero-aware: an entry per placement and cell of the blank (scheme 2)
        # or region of the blank (scheme 3).
        self.scheme = scheme
        self.goal = ("blank-last", "blank-first")[goal]
        self.encoding = encoding
        self.entries, table_len, offset, self.table_crc = struct.unpack_from("<QQQI", data, 32)
        self.tiles = list(data[64:64 + k])
        if len(data) != offset + table_len:
            raise PdbError(f"{path}: {len(data)} bytes, header promises {offset + table_len}")
        self.table = memoryview(data)[offset:]
        cells = self.n * self.n
        self.radix = [cells - i for i in range(k)]
        self.sets = None  # scheme 3: mask -> (first entry, regions), on first use

    def regions(self, taken):
        """The regions of the cells `taken` (a bit mask) leaves free: the
        region number of each free cell, numbered by lowest cell."""
        n = self.n
        label, number = {}, -1
        for start in range(n * n):
            if taken >> start & 1 or start in label:
                continue
            number += 1
            label[start] = number
            stack = [start]
            while stack:
                cell = stack.pop()
                row, col = divmod(cell, n)
                for r, c in ((row - 1, col), (row + 1, col), (row, col - 1), (row, col + 1)):
                    other = r * n + c
                    if 0 <= r < n and 0 <= c < n and not taken >> other & 1 and other not in label:
                        label[other] = number
                        stack.append(other)
        return label

    def set_table(self):
        """Scheme 3: the first entry and region count of every set of k
        cells, in colex order (increasing masks); computed once."""
        if self.sets is None:
            k, cells = len(self.tiles), self.n * self.n
            orders = 1
            for i in range(2, k + 1):
                orders *= i
            self.sets, first, mask = {}, 0, (1 << k) - 1
            while mask < 1 << cells:
                count = len(set(self.regions(mask).values()))
                self.sets[mask] = (first, count)
                first += orders * count
                low = mask & -mask  # the next mask with k bits (Gosper)
                ripple = mask + low
                mask = ripple | (((mask ^ ripple) >> 2) // low)
        return self.sets

    def verify(self):
        if zlib.crc32(self.table) != self.table_crc:
            raise PdbError("table CRC mismatch")

    def goal_cell(self, tile):
        cells = self.n * self.n
        if self.goal == "blank-last":
            return cells - 1 if tile == 0 else tile - 1
        return tile

    def rank(self, placement):
        rank = 0
        for i, c in enumerate(placement):
            digit = c - sum(1 for earlier in placement[:i] if earlier < c)
            rank = rank * self.radix[i] + digit
        return rank

    def index(self, placement, blank):
        """The entry of a placement; zero-aware: of the placement with the
        blank on `blank`, counted among the cells the pattern leaves free."""
        if self.scheme == 3:
            # The set of cells, the order of the tiles on it, the region.
            order, factorial = 0, 1
            for i, c in enumerate(placement):
                order += sum(1 for earlier in placement[:i] if earlier < c) * factorial
                factorial *= i + 1
            taken = sum(1 << c for c in placement)
            first, count = self.set_table()[taken]
            return first + order * count + self.regions(taken)[blank]
        rank = self.rank(placement)
        if self.scheme == 1:
            return rank
        free = self.n * self.n - len(placement)
        return rank * free + blank - sum(1 for c in placement if c < blank)

    def value(self, placement, blank):
        index = self.index(placement, blank)
        if self.encoding == 1:
            return self.table[index]
        nibble = (self.table[index // 2] >> (4 * (index % 2))) & 0xF
        n = self.n
        manhattan = 0
        for tile, cell in zip(self.tiles, placement):
            home = self.goal_cell(tile)
            manhattan += abs(cell // n - home // n) + abs(cell % n - home % n)
        return manhattan + 2 * nibble

    def lookup(self, board):
        """The table's lower bound for `board` (tiles row by row, 0 = blank)."""
        cells = self.n * self.n
        if len(board) != cells:
            raise BoardError(f"{len(board)} numbers, but the table is for {self.n}x{self.n} "
                             f"boards ({cells} numbers)")
        if sorted(board) != list(range(cells)):
            wrong = next((t for t in board if not 0 <= t < cells), None)
            if wrong is None:
                wrong = next(t for t in board if board.count(t) > 1)
                raise BoardError(f"tile {wrong} appears twice: a board holds each of "
                                 f"0..{cells - 1} once")
            raise BoardError(f"{wrong} is not a tile of a {self.n}x{self.n} board "
                             f"(0..{cells - 1})")
        cell_of = {tile: cell for cell, tile in enumerate(board)}
        return self.value([cell_of[t] for t in self.tiles], cell_of[0])


def parse_board(text):
    """Numbers separated by spaces, commas or '/'."""
    numbers = []
    for token in text.replace(",", " ").replace("/", " ").split():
        if not token.isdigit():
            raise BoardError(f"'{token}' is not a tile number")
        numbers.append(int(token))
    return numbers


def main(argv):
    if len(argv) < 2:
        print(__doc__.strip(), file=sys.stderr)
        return 2
    try:
        pdb = Pdb(argv[1])
    except (OSError, PdbError) as e:
        print(f"read_pdb: {e}", file=sys.stderr)
        return 1
    if len(argv) == 2:
        kind = "zero-aware, " if pdb.scheme > 1 else ""
        print(f"{pdb.n}x{pdb.n} goal {pdb.goal}, tiles {pdb.tiles}, {kind}"
              f"{pdb.entries} entries, encoding {pdb.encoding}, max value {pdb.max_value}")
        return 0
    for text in argv[2:]:
        try:
            print(pdb.lookup(parse_board(text)))
        except BoardError as e:
            print(f"read_pdb: board '{text}': {e}", file=sys.stderr)
            return 2
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
