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


# ---------------------------------------------------------------- a grid from tiles
def item_data(data, item):
    """The bytes of `item`'s data in a file whose `iloc` keeps it in the file (method 0)."""
    heif = HEIF(data)
    payload = bytes(heif._child(b"iloc")[1])
    version = payload[0]
    offset_size, length_size = payload[4] >> 4, payload[4] & 15
    base_size, index_size = payload[5] >> 4, (payload[5] & 15) if version >= 1 else 0
    at = 6

    def read(size):
        nonlocal at
        value = int.from_bytes(payload[at:at + size], "big") if size else 0
        at += size
        return value

    for _ in range(read(2 if version < 2 else 4)):
        found = read(2 if version < 2 else 4)
        method = read(2) & 15 if version >= 1 else 0
        read(2)
        base = read(base_size)
        pieces = []
        for _ in range(read(2)):
            read(index_size)
            offset, length = read(offset_size), read(length_size)
            pieces.append(data[base + offset:base + offset + length])
        if found == item:
            if method != 0:
                raise ValueError("item %d is not stored in the file" % item)
            return b"".join(pieces)
    raise KeyError(item)


def grid(tiles, columns, rows, width, height, nclx, brand=b"heix", thumbnail=None, thumbnail_tagged=True):
    """A HEIF file whose primary image is a `columns` x `rows` grid of `width` x `height` made
    of `tiles` (HEIF files from heif-enc, each a single HEVC image, row by row), as cameras
    write them: the tiles hidden, the grid descriptor in `idat`, and the nclx colour box
    (primaries, transfer, matrix, full range) on every tile and on the grid, since libheif 1.15
    converts each tile with the tile's own box. With `thumbnail` (another such file), it is the
    grid's stored thumbnail, with the same colour box unless `thumbnail_tagged` is false."""
    parsed = [HEIF(data) for data in tiles]
    first = parsed[0]
    tile_width, tile_height = first.ispe(first.primary)
    assert tile_width * columns >= width > tile_width * (columns - 1), "the grid's width does not fit its tiles"
    assert tile_height * rows >= height > tile_height * (rows - 1), "the grid's height does not fit its tiles"
    properties = []

    def index_of(prop):
        if prop not in properties:
            properties.append(prop)
        return properties.index(prop) + 1

    colour = index_of(colr_nclx(*nclx))
    pixi = first.property_of(first.primary, b"pixi")
    tile_ids = list(range(1, len(tiles) + 1))
    grid_id = len(tiles) + 1
    associations = {}
    coded = []
    for item, heif, data in zip(tile_ids, parsed, tiles):
        assert heif.ispe(heif.primary) == (tile_width, tile_height), "tiles of different sizes"
        associations[item] = [
            (True, index_of(heif.property_of(heif.primary, b"hvcC"))),
            (False, index_of(heif.property_of(heif.primary, b"ispe"))),
            (False, index_of(pixi)),
            (False, colour),
        ]
        coded.append(item_data(data, heif.primary))
    associations[grid_id] = [
        (False, index_of(full_box(b"ispe", 0, 0, struct.pack(">II", width, height)))),
        (False, index_of(pixi)),
        (False, colour),
    ]
    items = tile_ids + [grid_id]
    stored = list(zip(tile_ids, coded))
    if thumbnail is not None:
        preview = HEIF(thumbnail)
        thumbnail_id = grid_id + 1
        associations[thumbnail_id] = [
            (True, index_of(preview.property_of(preview.primary, b"hvcC"))),
            (False, index_of(preview.property_of(preview.primary, b"ispe"))),
            (False, index_of(preview.property_of(preview.primary, b"pixi"))),
        ] + ([(False, colour)] if thumbnail_tagged else [])
        items.append(thumbnail_id)
        stored.append((thumbnail_id, item_data(thumbnail, preview.primary)))
    ipma = bytearray(struct.pack(">I", len(associations)))
    for item in items:
        ipma += struct.pack(">HB", item, len(associations[item]))
        ipma += bytes((0x80 if essential else 0) | index for essential, index in associations[item])
    iprp = box(b"iprp", box(b"ipco", b"".join(properties)) + full_box(b"ipma", 0, 0, bytes(ipma)))
    infe = [full_box(b"infe", 2, 1, struct.pack(">HH4s", item, 0, b"hvc1") + b"\0") for item in tile_ids]
    infe.append(full_box(b"infe", 2, 0, struct.pack(">HH4s", grid_id, 0, b"grid") + b"\0"))
    if thumbnail is not None:
        infe.append(full_box(b"infe", 2, 0, struct.pack(">HH4s", thumbnail_id, 0, b"hvc1") + b"\0"))
    iinf = full_box(b"iinf", 0, 0, struct.pack(">H", len(infe)) + b"".join(infe))
    descriptor = struct.pack(">BBBBHH", 0, 0, rows - 1, columns - 1, width, height)
    dimg = box(b"dimg", struct.pack(">HH", grid_id, len(tile_ids)) + b"".join(struct.pack(">H", t) for t in tile_ids))
    if thumbnail is not None:
        dimg += box(b"thmb", struct.pack(">HHH", thumbnail_id, 1, grid_id))
    iref = full_box(b"iref", 0, 0, dimg)
    ftyp = box(b"ftyp", brand + b"\0\0\0\0" + b"mif1" + brand + b"miaf")

    def meta(mdat_start):
        entries = b""
        offset = mdat_start
        for item, payload in stored:
            entries += struct.pack(">HHHHII", item, 0, 0, 1, offset, len(payload))
            offset += len(payload)
        entries += struct.pack(">HHHHII", grid_id, 1, 0, 1, 0, len(descriptor))
        iloc = full_box(b"iloc", 1, 0, struct.pack(">BBH", 0x44, 0x00, len(stored) + 1) + entries)
        hdlr = full_box(b"hdlr", 0, 0, b"\0\0\0\0pict" + b"\0" * 12 + b"\0")
        pitm = full_box(b"pitm", 0, 0, struct.pack(">H", grid_id))
        return full_box(b"meta", 0, 0, hdlr + pitm + iinf + iloc + iref + iprp + box(b"idat", descriptor))

    start = len(ftyp) + len(meta(0)) + 8
    return ftyp + meta(start) + box(b"mdat", b"".join(payload for _, payload in stored))
