"""Reading and writing the few ISO-BMFF (HEIF) boxes the fixture scripts edit or build.

A file is read as its top-level boxes; `meta` as its children, `iprp` as `ipco` and `ipma`.
Edits change the item properties (`ipco`, `ipma`) of items; writing the file back moves the
boxes after `meta` (the coded data in `mdat`), so every `iloc` extent that points into the file
(construction method 0) is moved by the same amount. Standard library only."""

import struct


def box(kind, payload):
    return struct.pack(">I4s", 8 + len(payload), kind) + payload


def full_box(kind, version, flags, payload):
    return box(kind, struct.pack(">I", version << 24 | flags) + payload)


def children(data, start, end):
    """(type, payload) of each box in data[start:end]."""
    out = []
    offset = start
    while offset + 8 <= end:
        size, kind = struct.unpack(">I4s", data[offset:offset + 8])
        if size == 0:
            size = end - offset
        if size < 8 or offset + size > end:
            raise ValueError("malformed box %r at %d" % (kind, offset))
        out.append((kind, data[offset + 8:offset + size]))
        offset += size
    return out


# ---------------------------------------------------------------- properties
def clap(width, height, horizontal_offset, vertical_offset):
    """A clean aperture of `width` x `height` whose centre is `horizontal_offset`,
    `vertical_offset` (each a numerator/denominator pair, or an integer) from the image's
    centre. The corresponding box is `clap` (ISO/IEC 14496-12 12.1.4)."""

    def pair(value):
        return value if isinstance(value, tuple) else (value, 1)

    (wn, wd), (hn, hd) = pair(width), pair(height)
    (hon, hod), (von, vod) = pair(horizontal_offset), pair(vertical_offset)
    return box(b"clap", struct.pack(">IIIIiIiI", wn, wd, hn, hd, hon, hod, von, vod))


def irot(angle):
    """A rotation of `angle` degrees anticlockwise (0, 90, 180, 270)."""
    return box(b"irot", bytes([angle // 90 & 3]))


def imir(axis):
    """A mirroring about `axis` (the box's one bit; libheif 1.15 reads 0 as "top to bottom")."""
    return box(b"imir", bytes([axis & 1]))


def colr_nclx(primaries, transfer, matrix, full_range):
    return box(b"colr", b"nclx" + struct.pack(">HHHB", primaries, transfer, matrix, 0x80 if full_range else 0))


# ---------------------------------------------------------------- a whole file
class HEIF:
    """A HEIF file's top-level boxes, with its `meta` box opened up for editing."""

    def __init__(self, data):
        self.top = children(data, 0, len(data))
        kinds = [kind for kind, _ in self.top]
        self.meta_index = kinds.index(b"meta")
        meta = self.top[self.meta_index][1]
        self.meta_header = meta[:4]
        self.meta = [list(pair) for pair in children(meta, 4, len(meta))]
        self.properties, self.ipma_version, self.ipma_flags, self.associations = self._read_iprp()
        self.primary = self._read_pitm()
        self.original_meta_size = 8 + len(meta)

    def _child(self, kind):
        for pair in self.meta:
            if pair[0] == kind:
                return pair
        raise KeyError(kind)

    def _read_pitm(self):
        payload = self._child(b"pitm")[1]
        return struct.unpack(">H", payload[4:6])[0] if payload[0] == 0 else struct.unpack(">I", payload[4:8])[0]

    def _read_iprp(self):
        iprp = children(self._child(b"iprp")[1], 0, len(self._child(b"iprp")[1]))
        ipco = [payload for kind, payload in iprp if kind == b"ipco"][0]
        properties = [box(kind, payload) for kind, payload in children(ipco, 0, len(ipco))]
        (ipma,) = [payload for kind, payload in iprp if kind == b"ipma"]
        version, flags = ipma[0], struct.unpack(">I", ipma[:4])[0] & 0xFFFFFF
        count = struct.unpack(">I", ipma[4:8])[0]
        at = 8
        associations = {}
        order = []
        for _ in range(count):
            if version < 1:
                item = struct.unpack(">H", ipma[at:at + 2])[0]
                at += 2
            else:
                item = struct.unpack(">I", ipma[at:at + 4])[0]
                at += 4
            n = ipma[at]
            at += 1
            entries = []
            for _ in range(n):
                if flags & 1:
                    value = struct.unpack(">H", ipma[at:at + 2])[0]
                    entries.append((bool(value >> 15), value & 0x7FFF))
                    at += 2
                else:
                    entries.append((bool(ipma[at] >> 7), ipma[at] & 0x7F))
                    at += 1
            associations[item] = entries
            order.append(item)
        self.ipma_order = order
        return properties, version, flags, associations

    def item_type(self, item):
        iinf = self._child(b"iinf")[1]
        skip = 6 if iinf[0] == 0 else 8
        for kind, payload in children(iinf, skip, len(iinf)):
            if kind != b"infe" or payload[0] not in (2, 3):
                continue
            wide = payload[0] == 3
            found = struct.unpack(">I" if wide else ">H", payload[4:8] if wide else payload[4:6])[0]
            if found == item:
                at = 4 + (4 if wide else 2) + 2
                return payload[at:at + 4]
        return None

    def references(self, kind):
        """{from: [to, ...]} for every reference of `kind` in `iref`."""
        payload = self._child(b"iref")[1]
        wide = payload[0] != 0
        size = 4 if wide else 2
        fmt = ">I" if wide else ">H"
        out = {}
        for found, body in children(payload, 4, len(payload)):
            if found != kind:
                continue
            source = struct.unpack(fmt, body[:size])[0]
            count = struct.unpack(">H", body[size:size + 2])[0]
            targets = [struct.unpack(fmt, body[size + 2 + i * size:size + 2 + (i + 1) * size])[0] for i in range(count)]
            out.setdefault(source, []).extend(targets)
        return out

    def thumbnails_of(self, item):
        """The items that are thumbnails (`thmb`) of `item`."""
        return [source for source, targets in self.references(b"thmb").items() if item in targets]

    def property_of(self, item, kind):
        for _, index in self.associations.get(item, []):
            prop = self.properties[index - 1]
            if prop[4:8] == kind:
                return prop
        return None

    def ispe(self, item):
        prop = self.property_of(item, b"ispe")
        return struct.unpack(">II", prop[12:20])

    def add_property(self, item, prop, essential=True):
        """Appends `prop` (a whole box) to `ipco` and associates it with `item`, after the
        item's other properties: transformations apply in the order they are listed."""
        self.properties.append(prop)
        index = len(self.properties)
        if index > 0x7F:
            self.ipma_flags |= 1
        self.associations.setdefault(item, []).append((essential, index))
        if item not in self.ipma_order:
            self.ipma_order.append(item)

    def set_property(self, kind, prop):
        """Replaces every property of type `kind` with `prop`."""
        self.properties = [prop if p[4:8] == kind else p for p in self.properties]

    def _ipma(self):
        out = bytearray(struct.pack(">I", len(self.ipma_order)))
        for item in self.ipma_order:
            entries = self.associations[item]
            out += struct.pack(">H" if self.ipma_version < 1 else ">I", item)
            out.append(len(entries))
            for essential, index in entries:
                if self.ipma_flags & 1:
                    out += struct.pack(">H", (0x8000 if essential else 0) | index)
                else:
                    out.append((0x80 if essential else 0) | index)
        return full_box(b"ipma", self.ipma_version, self.ipma_flags, bytes(out))

    def write(self):
        iprp = box(b"ipco", b"".join(self.properties)) + self._ipma()
        self._child(b"iprp")[1] = iprp
        meta = box(b"meta", self.meta_header + b"".join(box(kind, payload) for kind, payload in self.meta))
        delta = len(meta) - self.original_meta_size
        # Data after meta moves by delta: so must every iloc extent in the file (method 0).
        meta = box(b"meta", self.meta_header + b"".join(
            box(kind, shift_iloc(payload, delta) if kind == b"iloc" else payload) for kind, payload in self.meta))
        out = b""
        for index, (kind, payload) in enumerate(self.top):
            out += meta if index == self.meta_index else box(kind, payload)
        return out


def shift_iloc(payload, delta):
    """The `iloc` box's payload with every file offset (construction method 0) moved by
    `delta`: by its base offset when it has one, else by each extent's offset."""
    data = bytearray(payload)
    version = data[0]
    offset_size, length_size = data[4] >> 4, data[4] & 15
    base_size, index_size = data[5] >> 4, (data[5] & 15) if version >= 1 else 0
    at = 6

    def read(size):
        nonlocal at
        value = int.from_bytes(data[at:at + size], "big") if size else 0
        at += size
        return value

    def write(position, size, value):
        data[position:position + size] = value.to_bytes(size, "big")

    count = read(2 if version < 2 else 4)
    for _ in range(count):
        read(2 if version < 2 else 4)
        method = read(2) & 15 if version >= 1 else 0
        read(2)  # data reference index
        base_at = at
        base = read(base_size)
        extents = read(2)
        moved_base = method == 0 and base_size > 0
        if moved_base:
            write(base_at, base_size, base + delta)
        for _ in range(extents):
            read(index_size)
            offset_at = at
            offset = read(offset_size)
            read(length_size)
            if method == 0 and not moved_base:
                write(offset_at, offset_size, offset + delta)
    return bytes(data)
