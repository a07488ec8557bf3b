-- Wireshark dissector for fabemu capture files (pcap-tools/FORMAT.md).
--
-- EtherType 0x88B5 carries the 48-byte fabemu header and then one fabric
-- packet as the profile encodes it: YARC phits (dataplane/codec/yarc_phit.h),
-- T3E flits (dataplane/codec/t3e_flit.h; fabemu_t3e.lua), Spider
-- micropackets (spider_micropacket.h; fabemu_spider.lua) or 3D mesh words
-- (mesh3d_packet.h; fabemu_mesh3d.lua): those three files, beside this one,
-- are loaded by it. Every bit field is shown where it sits, every CRC is
-- recomputed as the codec computes it, and the segments of a host's Ethernet
-- frame are put back together and handed to Wireshark's Ethernet dissector.
--
--   tshark -X lua_script:pcap-tools/fabemu.lua -r run.pcapng
--   fabemu run SPEC --capture all --capture-file - |
--     wireshark -X lua_script:pcap-tools/fabemu.lua -k -i -     (live)
--   wireshark: copy the four fabemu*.lua files to ~/.local/lib/wireshark/plugins/
--
-- The Source and Destination columns show the packet's fabric endpoints
-- (ep3, ep12); the interface (frame.interface_name) names the link.
--
-- Filter fields start with fabemu. (header), fabemu.yarc., fabemu.t3e., fabemu.spider.,
-- fabemu.mesh3d., fabemu.crc. and fabemu.frame. (reassembly);
--   tshark -G fields -X lua_script:pcap-tools/fabemu.lua | grep fabemu
-- lists them.

local fabemu = Proto("fabemu", "fabemu fabric packet")

local ETHERTYPE = 0x88B5
local HEADER_BYTES = 48
local PROFILE_YARC, PROFILE_T3E, PROFILE_SPIDER, PROFILE_MESH3D = 1, 2, 3, 4
local YARC_PHIT_BYTES, YARC_DATA_BITS = 3, 22

-- Wireshark ships Lua BitOp as the global "bit" with every Lua version it
-- builds with (5.1 to 5.4), unlike bit32; values here stay below 2^31, so
-- its signed 32-bit results are never negative.
local band, bxor, rshift = bit.band, bit.bxor, bit.rshift
local unpack = table.unpack or unpack

local function bits(x, shift, width) return band(rshift(x, shift), 2 ^ width - 1) end

---------------------------------------------------------------- fields ---

local class_names = { [0] = "request", [1] = "response" }
local crc_status_names = { [0] = "Bad", [1] = "Good", [2] = "Unverified" }
local CRC_BAD, CRC_GOOD, CRC_UNVERIFIED = 0, 1, 2

local hf = {
  -- fabemu header (FORMAT.md "A fabric packet on a link")
  version = ProtoField.uint8("fabemu.version", "Version"),
  profile = ProtoField.uint8("fabemu.profile", "Profile encoding", base.DEC,
                             { [PROFILE_YARC] = "YARC phits", [PROFILE_T3E] = "T3E flits",
                               [PROFILE_SPIDER] = "Spider micropackets",
                               [PROFILE_MESH3D] = "3D mesh words" }),
  flags = ProtoField.uint8("fabemu.flags", "Flags", base.HEX),
  flag_retry = ProtoField.bool("fabemu.flags.retry", "Retransmission", 8, nil, 0x01),
  flag_bad_crc = ProtoField.bool("fabemu.flags.bad_crc", "Bad CRC (corrupted on this link)", 8, nil, 0x02),
  flag_truncated = ProtoField.bool("fabemu.flags.truncated", "Truncated", 8, nil, 0x04),
  flag_last = ProtoField.bool("fabemu.flags.last", "Last segment", 8, nil, 0x08),
  flag_frame = ProtoField.bool("fabemu.flags.frame", "Frame segment", 8, nil, 0x10),
  flag_response = ProtoField.bool("fabemu.flags.response", "Response class", 8, nil, 0x20),
  flag_measured = ProtoField.bool("fabemu.flags.measured", "Measured", 8, nil, 0x40),
  flag_reserved = ProtoField.uint8("fabemu.flags.reserved", "Reserved", base.HEX, nil, 0x80),
  vc = ProtoField.uint8("fabemu.vc", "VC"),
  link = ProtoField.uint32("fabemu.link", "Link id"),
  link_seq = ProtoField.uint32("fabemu.link_seq", "Link sequence"),
  units = ProtoField.uint16("fabemu.units", "Units"),
  encoded_bytes = ProtoField.uint16("fabemu.encoded_bytes", "Encoded bytes"),
  time_ps = ProtoField.uint64("fabemu.time_ps", "Time (ps)"),
  src = ProtoField.uint32("fabemu.src", "Source endpoint"),
  dst = ProtoField.uint32("fabemu.dst", "Destination endpoint"),
  packet_id = ProtoField.uint64("fabemu.packet_id", "Packet id", base.HEX),
  packet_id_src = ProtoField.uint32("fabemu.packet_id.src", "Injection port (id >> 40)"),
  packet_id_count = ProtoField.uint64("fabemu.packet_id.count", "Injection port's packet count"),
  msg_seq = ProtoField.uint32("fabemu.msg_seq", "Message sequence"),
  seg = ProtoField.uint16("fabemu.seg", "Segment"),
  nseg = ProtoField.uint16("fabemu.nseg", "Segments"),

  -- shared by both encodings
  payload = ProtoField.bytes("fabemu.payload", "Payload"),
  payload_len = ProtoField.uint16("fabemu.payload_len", "Payload bytes"),
  crc_computed = ProtoField.uint16("fabemu.crc.computed", "Computed CRC", base.HEX),
  crc_status = ProtoField.uint8("fabemu.crc.status", "CRC status", base.DEC, crc_status_names),

  -- YARC phits: 24 bits, [23:22] sideband, [21:0] data
  yarc_phits = ProtoField.uint16("fabemu.yarc.phits", "Phits"),
  yarc_phit = ProtoField.uint24("fabemu.yarc.phit", "Phit", base.HEX),
  yarc_sideband = ProtoField.uint24("fabemu.yarc.sideband", "Sideband", base.DEC, nil, 0xC00000),
  yarc_dest = ProtoField.uint24("fabemu.yarc.dest", "Destination", base.DEC, nil, 0x3FFF80),
  yarc_v = ProtoField.uint24("fabemu.yarc.v", "v (virtual channel)", base.DEC, class_names, 0x000040),
  yarc_h = ProtoField.bool("fabemu.yarc.h", "h (hash phit follows)", 24, nil, 0x000020),
  yarc_a = ProtoField.bool("fabemu.yarc.a", "a (adaptive routing)", 24, nil, 0x000010),
  yarc_r = ProtoField.bool("fabemu.yarc.r", "r (source routed)", 24, nil, 0x000008),
  yarc_hlen = ProtoField.uint24("fabemu.yarc.hlen", "hlen (transport header phits)", base.DEC, nil, 0x000007),
  yarc_hash_reserved = ProtoField.uint24("fabemu.yarc.hash_reserved", "Reserved", base.HEX, nil, 0x3F8000),
  yarc_hash = ProtoField.uint24("fabemu.yarc.hash", "Hash", base.HEX, nil, 0x007FFF),
  yarc_xhdr = ProtoField.uint24("fabemu.yarc.xhdr", "Transport header data", base.HEX, nil, 0x3FFFFF),
  -- fabemu's use of the transport header phits (yarc_encode_meta)
  yarc_src = ProtoField.uint24("fabemu.yarc.src", "T0 source", base.DEC, nil, 0x3FFF80),
  yarc_pkt_flags = ProtoField.uint24("fabemu.yarc.pkt_flags", "T0 packet flags", base.HEX, nil, 0x00007F),
  yarc_pf_measured = ProtoField.bool("fabemu.yarc.pkt_flags.measured", "Measured", 24, nil, 0x01),
  yarc_pf_last = ProtoField.bool("fabemu.yarc.pkt_flags.last", "Last segment", 24, nil, 0x02),
  yarc_pf_reply = ProtoField.bool("fabemu.yarc.pkt_flags.needs_reply", "Needs reply", 24, nil, 0x04),
  yarc_pf_frame = ProtoField.bool("fabemu.yarc.pkt_flags.frame", "Frame segment", 24, nil, 0x08),
  yarc_msg_seq = ProtoField.uint24("fabemu.yarc.msg_seq", "T1 message sequence [21:0]", base.DEC, nil, 0x3FFFFF),
  yarc_seg = ProtoField.uint24("fabemu.yarc.seg", "T2 segment [10:0]", base.DEC, nil, 0x3FF800),
  yarc_nseg = ProtoField.uint24("fabemu.yarc.nseg", "T2 segments [10:0]", base.DEC, nil, 0x0007FF),
  yarc_id = ProtoField.uint24("fabemu.yarc.id", "T3 packet id [21:0]", base.HEX, nil, 0x3FFFFF),
  yarc_payload_bits = ProtoField.uint24("fabemu.yarc.payload_bits", "Payload bits", base.HEX, nil, 0x3FFFFF),
  yarc_eop_reserved = ProtoField.uint24("fabemu.yarc.eop_reserved", "Reserved", base.HEX, nil, 0x300000),
  yarc_pad = ProtoField.uint24("fabemu.yarc.pad", "Pad (unused bytes)", base.DEC, nil, 0x0C0000),
  yarc_ok = ProtoField.uint24("fabemu.yarc.ok", "ok", base.DEC,
                              { [0] = "healthy", [1] = "transmit error", [2] = "soft error", [3] = "reserved" },
                              0x030000),
  yarc_crc = ProtoField.uint24("fabemu.yarc.crc", "CRC", base.HEX, nil, 0x00FFFF),

  -- frame reassembly
  frame_reassembled_in = ProtoField.framenum("fabemu.frame.reassembled_in", "Frame reassembled in"),
  frame_segment = ProtoField.framenum("fabemu.frame.segment", "Segment in frame"),
  frame_length = ProtoField.uint32("fabemu.frame.length", "Reassembled frame length"),
}

-- T3E's, Spider's and the 3D mesh's fields and dissection, from the files
-- beside this one.
local here = debug.getinfo(1, "S").source:match("^@(.*[/\\])") or ""
local t3e = dofile(here .. "fabemu_t3e.lua")
local spider = dofile(here .. "fabemu_spider.lua")
local mesh3d = dofile(here .. "fabemu_mesh3d.lua")
for _, codec in ipairs({ t3e, spider, mesh3d }) do
  for k, field in pairs(codec.fields) do hf[k] = field end
end

local list = {}
for _, field in pairs(hf) do list[#list + 1] = field end
fabemu.fields = list

local ef = {
  crc_bad = ProtoExpert.new("fabemu.crc.bad", "Bad CRC", expert.group.CHECKSUM, expert.severity.ERROR),
  truncated = ProtoExpert.new("fabemu.truncated", "Encoding truncated by the snapshot length",
                              expert.group.UNDECODED, expert.severity.NOTE),
  malformed = ProtoExpert.new("fabemu.malformed", "Malformed encoding", expert.group.MALFORMED,
                              expert.severity.ERROR),
  mismatch = ProtoExpert.new("fabemu.mismatch", "Encoding disagrees with the fabemu header",
                             expert.group.PROTOCOL, expert.severity.WARN),
  ok_error = ProtoExpert.new("fabemu.yarc.ok_error", "EOP ok field marks an error",
                             expert.group.PROTOCOL, expert.severity.WARN),
  retry = ProtoExpert.new("fabemu.retry", "Link-level retransmission", expert.group.SEQUENCE,
                          expert.severity.NOTE),
  reassembled = ProtoExpert.new("fabemu.reassembled", "Frame reassembled from its segments",
                                expert.group.REASSEMBLE, expert.severity.CHAT),
  stomped = ProtoExpert.new("fabemu.spider.stomped", "Stomp code: moved on before its CRC failed",
                            expert.group.PROTOCOL, expert.severity.WARN),
}
fabemu.experts = { ef.crc_bad, ef.truncated, ef.malformed, ef.mismatch, ef.ok_error, ef.retry,
                   ef.reassembled, ef.stomped }
for _, e in pairs(mesh3d.experts) do fabemu.experts[#fabemu.experts + 1] = e end

------------------------------------------------------------------ CRC ---

-- CRC-16/X-25 as crc16.h defines it (DPDK's RTE_NET_CRC16_CCITT): reflected
-- polynomial 0x8408, initial 0xFFFF, final XOR 0xFFFF; "123456789" -> 0x906E.
local crc_table = {}
for i = 0, 255 do
  local c = i
  for _ = 1, 8 do
    if c % 2 == 1 then c = bxor(rshift(c, 1), 0x8408) else c = rshift(c, 1) end
  end
  crc_table[i] = c
end

local function crc16_x25(bytes)
  local crc = 0xFFFF
  for i = 1, #bytes do
    crc = bxor(rshift(crc, 8), crc_table[band(bxor(crc, bytes[i]), 0xFF)])
  end
  return bxor(crc, 0xFFFF)
end

------------------------------------------------------------- header ---

local function dissect_header(tvb, tree)
  local h = {
    version = tvb(0, 1):uint(), profile = tvb(1, 1):uint(), flags = tvb(2, 1):uint(),
    vc = tvb(3, 1):uint(), link = tvb(4, 4):uint(), link_seq = tvb(8, 4):uint(),
    units = tvb(12, 2):uint(), encoded_bytes = tvb(14, 2):uint(), time_ps = tvb(16, 8):uint64(),
    src = tvb(24, 4):uint(), dst = tvb(28, 4):uint(), id = tvb(32, 8):uint64(),
    msg_seq = tvb(40, 4):uint(), seg = tvb(44, 2):uint(), nseg = tvb(46, 2):uint(),
  }
  local t = tree:add(fabemu, tvb(0, HEADER_BYTES), "fabemu header")
  t:add(hf.version, tvb(0, 1))
  t:add(hf.profile, tvb(1, 1))
  local ft = t:add(hf.flags, tvb(2, 1))
  for _, k in ipairs({ "retry", "bad_crc", "truncated", "last", "frame", "response", "measured",
                       "reserved" }) do
    ft:add(hf["flag_" .. k], tvb(2, 1))
  end
  t:add(hf.vc, tvb(3, 1))
  t:add(hf.link, tvb(4, 4))
  t:add(hf.link_seq, tvb(8, 4))
  t:add(hf.units, tvb(12, 2))
  t:add(hf.encoded_bytes, tvb(14, 2))
  t:add(hf.time_ps, tvb(16, 8))
  t:add(hf.src, tvb(24, 4))
  t:add(hf.dst, tvb(28, 4))
  local it = t:add(hf.packet_id, tvb(32, 8))
  it:add(hf.packet_id_src, tvb(32, 8), h.id:rshift(40):tonumber()):set_generated()
  it:add(hf.packet_id_count, tvb(32, 8), h.id:band(UInt64.new(0xFFFFFFFF, 0xFF))):set_generated()
  t:add(hf.msg_seq, tvb(40, 4))
  t:add(hf.seg, tvb(44, 2))
  t:add(hf.nseg, tvb(46, 2))
  if h.flags % 2 == 1 then t:add_proto_expert_info(ef.retry) end
  return h
end

-- Flags an encoding field that disagrees with the header (both are written
-- from the same packet metadata, so a difference is a writer or codec bug).
local function expect(item, what, got, want)
  if got ~= want then
    item:add_proto_expert_info(ef.mismatch,
      string.format("%s is %s in the encoding, %s in the fabemu header", what, tostring(got),
                    tostring(want)))
  end
end

--------------------------------------------------------------- YARC ---

local function yarc_data(tvb, i) return band(tvb(i * YARC_PHIT_BYTES, 3):uint(), 0x3FFFFF) end

-- The payload phits as one bit stream, MSB first, 22 bits per phit, cut to
-- nbytes (yarc_phit.cpp parse): a Lua string of the bytes. acc stays below
-- 2^30, exact in any Lua number type.
local function yarc_unpack(tvb, first, count, nbytes)
  local out, acc, nbits = {}, 0, 0
  for k = 0, count - 1 do
    acc = acc * 2 ^ YARC_DATA_BITS + yarc_data(tvb, first + k)
    nbits = nbits + YARC_DATA_BITS
    while nbits >= 8 and #out < nbytes do
      nbits = nbits - 8
      out[#out + 1] = math.floor(acc / 2 ^ nbits) % 256
    end
    acc = acc % 2 ^ nbits
  end
  return string.char(unpack(out))
end

-- The CRC the codec writes (yarc_phit.cpp packet_crc): data bits of every
-- phit before the EOP, then the EOP's reserved and pad bits, with sideband,
-- ok and CRC as zero, since the LCB rewrites those without resealing.
local function yarc_crc(tvb, n)
  local bytes = {}
  for i = 0, n - 2 do
    local o = i * YARC_PHIT_BYTES
    bytes[#bytes + 1] = band(tvb(o, 1):uint(), 0x3F)
    bytes[#bytes + 1] = tvb(o + 1, 1):uint()
    bytes[#bytes + 1] = tvb(o + 2, 1):uint()
  end
  bytes[#bytes + 1] = band(tvb((n - 1) * YARC_PHIT_BYTES, 1):uint(), 0x3C)
  return crc16_x25(bytes)
end

local transport_names = { [0] = "T0 source/flags", "T1 message sequence", "T2 segment", "T3 packet id" }

-- Adds fabemu's reading of transport header phit k (yarc_encode_meta) when
-- the packet is not source routed (then the phits hold the routing vector).
local function yarc_transport(pt, r, k, w, h)
  if k == 0 then
    expect(pt:add(hf.yarc_src, r), "source", bits(w, 7, 15), h.src % 2 ^ 15)
    local ft = pt:add(hf.yarc_pkt_flags, r)
    for _, f in ipairs({ "measured", "last", "reply", "frame" }) do
      ft:add(hf["yarc_pf_" .. f], r)
    end
  elseif k == 1 then
    expect(pt:add(hf.yarc_msg_seq, r), "message sequence", w, h.msg_seq % 2 ^ 22)
  elseif k == 2 then
    local it = pt:add(hf.yarc_seg, r)
    expect(it, "segment", bits(w, 11, 11), h.seg % 2 ^ 11)
    expect(pt:add(hf.yarc_nseg, r), "segments", bits(w, 0, 11), h.nseg % 2 ^ 11)
  elseif k == 3 then
    expect(pt:add(hf.yarc_id, r), "packet id [21:0]", w, h.id:lower() % 2 ^ 22)
  end
end

-- enc: the captured encoding; n: phits in the whole packet (from the
-- header's encoded bytes). Returns the payload (string) when every phit is
-- there and the layout parses, and the CRC status.
local function dissect_yarc(enc, tree, h, n)
  local present = math.min(n, math.floor(enc:len() / YARC_PHIT_BYTES))
  local t = tree:add(fabemu, enc(0, present * YARC_PHIT_BYTES), "YARC packet")
  t:add(hf.yarc_phits, n):set_generated()
  if present == 0 then return nil, CRC_UNVERIFIED end

  local head = yarc_data(enc, 0)
  local hb, hlen = bits(head, 5, 1), bits(head, 0, 3)
  local fixed = 2 + hb + hlen -- head, hash, transport header, EOP
  local np = n - fixed
  local eop = present == n and yarc_data(enc, n - 1) or nil
  local pad = eop and bits(eop, 18, 2) or 0
  local cap = math.floor(np * YARC_DATA_BITS / 8) -- whole bytes the payload phits hold
  local nbytes = math.max(0, cap - pad)
  local layout_ok = n >= 4 and np >= 0

  for i = 0, present - 1 do
    local r = enc(i * YARC_PHIT_BYTES, 3)
    local w = band(r:uint(), 0x3FFFFF)
    local pt = t:add(hf.yarc_phit, r)
    pt:add(hf.yarc_sideband, r)
    local kind
    if i == 0 then
      kind = "head"
      expect(pt:add(hf.yarc_dest, r), "destination", bits(w, 7, 15), h.dst % 2 ^ 15)
      expect(pt:add(hf.yarc_v, r), "class (v)", bits(w, 6, 1), bits(h.flags, 5, 1))
      pt:add(hf.yarc_h, r)
      pt:add(hf.yarc_a, r)
      pt:add(hf.yarc_r, r)
      pt:add(hf.yarc_hlen, r)
    elseif i == n - 1 and layout_ok then
      kind = "EOP"
      pt:add(hf.yarc_eop_reserved, r)
      pt:add(hf.yarc_pad, r)
      local ok = pt:add(hf.yarc_ok, r)
      if bits(w, 16, 2) ~= 0 then ok:add_proto_expert_info(ef.ok_error) end
      pt:add(hf.yarc_crc, r)
    elseif hb == 1 and i == 1 then
      kind = "hash"
      pt:add(hf.yarc_hash_reserved, r)
      pt:add(hf.yarc_hash, r)
    elseif i < 1 + hb + hlen then
      local k = i - 1 - hb
      kind = "transport header " .. k
      pt:add(hf.yarc_xhdr, r)
      if bits(head, 3, 1) == 0 and transport_names[k] then
        kind = "transport header " .. transport_names[k]
        yarc_transport(pt, r, k, w, h)
      end
    else
      kind = "payload " .. (i - 1 - hb - hlen)
      pt:add(hf.yarc_payload_bits, r)
    end
    pt:set_text(string.format("Phit %d: %s (0x%06x)", i, kind, r:uint()))
  end

  if not layout_ok then
    t:add_proto_expert_info(ef.malformed,
      string.format("%d phits cannot hold head, %d hash, %d transport header phits and EOP", n, hb, hlen))
    return nil, CRC_UNVERIFIED
  end
  if not eop then
    t:add(hf.crc_status, CRC_UNVERIFIED):set_generated()
    return nil, CRC_UNVERIFIED
  end

  local carried = band(eop, 0xFFFF)
  local computed = yarc_crc(enc, n)
  t:add(hf.crc_computed, computed):set_generated()
  local status = computed == carried and CRC_GOOD or CRC_BAD
  local st = t:add(hf.crc_status, status):set_generated()
  if status == CRC_BAD then
    st:add_proto_expert_info(ef.crc_bad,
      string.format("Bad CRC: carried 0x%04x, computed 0x%04x", carried, computed))
  end
  -- Only the shortest encoding of a byte count is valid (yarc_phit.cpp parse).
  if bits(eop, 20, 2) ~= 0 or pad > 2 or pad > cap or math.ceil(nbytes * 8 / YARC_DATA_BITS) ~= np then
    t:add_proto_expert_info(ef.malformed,
      string.format("%d payload phits with pad %d is not a valid payload length", np, pad))
    return nil, status
  end
  local payload = yarc_unpack(enc, 1 + hb + hlen, np, nbytes)
  return payload, status
end

---------------------------------------------------------- reassembly ---

-- Segments of a host's frame, kept across calls: Wireshark's C reassembly is
-- not reachable from Lua. The key has the link id besides the source and
-- message sequence because with every link tapped the same segment shows up
-- once per hop. Filled on the first pass only (pinfo.visited false), so a
-- later re-dissection (clicking a packet in Wireshark, tshark -2) finds the
-- same result. reset (fabemu.init) empties them when a file is (re)loaded.
local pending, complete, reassembled_in

local function reset()
  pending = {}        -- key -> { nseg, count, parts[seg+1] = bytes, frames[seg+1] = number }
  complete = {}       -- number of the packet completing a frame -> { data, frames }
  reassembled_in = {} -- number of every segment's packet -> number where its frame completed
end
reset()
fabemu.init = reset

local eth_dissector = Dissector.get("eth_withoutfcs")

local function add_segment(pinfo, h, payload)
  local key = string.format("%d:%d:%d", h.link, h.src, h.msg_seq)
  local st = pending[key]
  if not st or st.nseg ~= h.nseg then
    st = { nseg = h.nseg, count = 0, parts = {}, frames = {} }
    pending[key] = st
  end
  if not st.parts[h.seg + 1] then st.count = st.count + 1 end
  -- A link-level retransmission carries the same bytes: keep the latest copy.
  st.parts[h.seg + 1] = payload
  st.frames[h.seg + 1] = pinfo.number
  if st.count == st.nseg then
    complete[pinfo.number] = { data = table.concat(st.parts, "", 1, st.nseg), frames = st.frames }
    for _, num in ipairs(st.frames) do reassembled_in[num] = pinfo.number end
    pending[key] = nil
  end
end

-- Returns true when the frame was handed to the Ethernet dissector.
local function frame_segment(tvb, pinfo, tree, h, payload)
  if h.nseg == 0 or h.seg >= h.nseg then
    tree:add_proto_expert_info(ef.malformed, string.format("segment %d of %d", h.seg, h.nseg))
    return false
  end
  if payload and not pinfo.visited then add_segment(pinfo, h, payload) end
  local done = complete[pinfo.number]
  if not done then
    local where = reassembled_in[pinfo.number]
    if where then tree:add(hf.frame_reassembled_in, where):set_generated() end
    return false
  end
  local ft = tree:add(fabemu, tvb(0, 0), "Reassembled frame")
  ft:add(hf.frame_length, #done.data):set_generated()
  for _, num in ipairs(done.frames) do ft:add(hf.frame_segment, num):set_generated() end
  ft:add_proto_expert_info(ef.reassembled)
  local frame = ByteArray.new(done.data, true):tvb("Reassembled frame")
  -- Keep our summary in front of what the Ethernet and upper dissectors write.
  pinfo.cols.info:append(" | ")
  pinfo.cols.info:fence()
  eth_dissector:call(frame, pinfo, tree)
  return true
end

----------------------------------------------------------- dissector ---

-- Source and Destination columns: the packet's fabric endpoints (ep3 ->
-- ep12), as IP's are for an IP packet. Lua makes only IP and Ethernet
-- addresses, so the columns are written as text; Wireshark fills them from
-- pinfo.src and pinfo.dst after dissection unless those are empty, so they
-- take the network layer's, which below the fabric is empty (under IP, IP's
-- as before). The hardware address columns keep the link's MACs; a frame put
-- back together shows its own addresses, as its Ethernet and IP dissectors
-- set them.
local function set_endpoints(pinfo, h)
  pinfo.src = pinfo.net_src
  pinfo.dst = pinfo.net_dst
  pinfo.cols.src = "ep" .. h.src
  pinfo.cols.dst = "ep" .. h.dst
end

local unit_names = { [PROFILE_YARC] = { "YARC", "phit", YARC_PHIT_BYTES },
                     [PROFILE_T3E] = { "T3E", "flit", t3e.unit_bytes },
                     [PROFILE_SPIDER] = { "Spider", "micropacket", spider.unit_bytes },
                     [PROFILE_MESH3D] = { "3D mesh", "word", mesh3d.unit_bytes } }
local codec_ctx = { fabemu = fabemu, hf = hf, ef = ef, mesh3d_ef = mesh3d.experts, expect = expect,
                    bits = bits, crc16_x25 = crc16_x25, CRC_BAD = CRC_BAD, CRC_GOOD = CRC_GOOD,
                    CRC_UNVERIFIED = CRC_UNVERIFIED }

function fabemu.dissector(tvb, pinfo, tree)
  if tvb:len() < HEADER_BYTES then return 0 end
  pinfo.cols.protocol = "fabemu"
  local root = tree:add(fabemu, tvb(0, math.min(tvb:len(), HEADER_BYTES + tvb(14, 2):uint())))
  local h = dissect_header(tvb, root)

  local avail = math.min(tvb:len() - HEADER_BYTES, h.encoded_bytes)
  local truncated = avail < h.encoded_bytes
  if truncated or band(h.flags, 0x04) ~= 0 then
    root:add_proto_expert_info(ef.truncated,
      string.format("%d of %d encoded bytes captured", avail, h.encoded_bytes))
  end

  local u = unit_names[h.profile]
  if not u then
    root:add_proto_expert_info(ef.malformed, "Unknown profile " .. h.profile)
    set_endpoints(pinfo, h)
    pinfo.cols.info = string.format("fabemu profile %d ep%d->ep%d", h.profile, h.src, h.dst)
    return HEADER_BYTES + avail
  end
  local n = math.floor(h.encoded_bytes / u[3])
  if n * u[3] ~= h.encoded_bytes then
    root:add_proto_expert_info(ef.malformed,
      string.format("%d encoded bytes is not a whole number of %ss", h.encoded_bytes, u[2]))
  end
  expect(root, u[2] .. "s", n, h.units)

  local payload, crc
  if avail == 0 then
    -- nothing of the encoding was captured: the header is all there is
  elseif h.profile == PROFILE_YARC then
    payload, crc = dissect_yarc(tvb(HEADER_BYTES, avail):tvb(), root, h, n)
  elseif h.profile == PROFILE_SPIDER then
    payload, crc = spider.dissect(codec_ctx, tvb(HEADER_BYTES, avail):tvb(), root, h, n)
  elseif h.profile == PROFILE_MESH3D then
    payload, crc = mesh3d.dissect(codec_ctx, tvb(HEADER_BYTES, avail):tvb(), root, h, n)
  else
    payload = t3e.dissect(codec_ctx, tvb(HEADER_BYTES, avail):tvb(), root, h, n)
  end
  if payload then
    if #payload > 0 then root:add(hf.payload, ByteArray.new(payload, true):tvb("Payload")()) end
    root:add(hf.payload_len, #payload):set_generated()
  end

  -- The flag says the link corrupted the packet; T3E flits carry no CRC of
  -- their own, and FORMAT.md leaves open whether the recorded bytes are the
  -- corrupted ones, so the flag alone is also reported.
  local flagged = band(h.flags, 0x02) ~= 0
  if flagged and crc ~= CRC_BAD then
    root:add_proto_expert_info(ef.crc_bad, "Corrupted on this link (bad CRC flag in the fabemu header)")
  end

  set_endpoints(pinfo, h)
  local info = string.format("%s %d %ss ep%d->ep%d vc%d", u[1], n, u[2], h.src, h.dst, h.vc)
  if h.nseg > 1 then info = info .. string.format(" seg %d/%d", h.seg + 1, h.nseg) end
  info = info .. " link " .. h.link
  if band(h.flags, 0x01) ~= 0 then info = info .. " [retry]" end
  if crc == CRC_BAD or flagged then info = info .. " [bad CRC]" end
  if truncated or band(h.flags, 0x04) ~= 0 then info = info .. " [truncated]" end
  pinfo.cols.info = info

  -- A segment corrupted on this link is resent by the link layer; only a
  -- good copy joins the frame.
  if band(h.flags, 0x10) ~= 0 then
    frame_segment(tvb, pinfo, root, h, not flagged and crc ~= CRC_BAD and payload or nil)
  end
  return HEADER_BYTES + avail
end

DissectorTable.get("ethertype"):add(ETHERTYPE, fabemu)
