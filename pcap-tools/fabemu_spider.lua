-- Spider micropackets for the fabemu dissector (fabemu.lua loads this file
-- from its own directory): dataplane/codec/spider_micropacket.h and
-- pcap-tools/FORMAT.md "Spider micropackets". 20 bytes each: 16 data bytes,
-- the sideband (Figure 3 of Galles, IEEE Micro 1997), the LLP's sequence
-- and acknowledge numbers and its CRC-16/X-25, low byte first; the CRC
-- complemented is the stomp code.

local MP_BYTES = 20
local band, rshift = bit.band, bit.rshift

local row_names = { [0] = "credit", [1] = "credit, error", [2] = "no credit", [3] = "credit only" }
local crc_names = { [0] = "Bad", [1] = "Good", [2] = "Unverified", [3] = "Stomped" }

local f = {
  spider_mps = ProtoField.uint8("fabemu.spider.micropackets", "Micropackets"),
  spider_mp = ProtoField.bytes("fabemu.spider.micropacket", "Micropacket"),
  spider_msg_seq = ProtoField.uint24("fabemu.spider.msg_seq", "Message sequence [23:0]"),
  spider_src = ProtoField.uint16("fabemu.spider.src", "Source endpoint"),
  spider_seg = ProtoField.uint16("fabemu.spider.seg", "Segment [9:0]"),
  spider_nseg = ProtoField.uint16("fabemu.spider.nseg", "Segments [9:0]"),
  spider_class = ProtoField.uint8("fabemu.spider.class", "Class", base.DEC,
                                  { [0] = "request", [1] = "response" }),
  spider_vector = ProtoField.bool("fabemu.spider.vector", "Vector-routed"),
  spider_payload_bytes = ProtoField.uint8("fabemu.spider.payload_bytes", "Payload bytes"),
  spider_vector_route = ProtoField.uint64("fabemu.spider.vector_route", "Vector route", base.HEX),
  spider_dst = ProtoField.uint16("fabemu.spider.dst", "Destination ID"),
  spider_dir = ProtoField.uint8("fabemu.spider.direction", "Direction (exit port at the next chip)"),
  spider_age = ProtoField.uint8("fabemu.spider.age", "Age"),
  spider_cc = ProtoField.uint8("fabemu.spider.cc", "Congestion control", base.DEC, nil, 0x03),
  spider_data = ProtoField.bytes("fabemu.spider.data", "Data"),
  spider_sideband = ProtoField.uint8("fabemu.spider.sideband", "Sideband", base.HEX),
  spider_sb_row = ProtoField.uint8("fabemu.spider.sb_row", "Sideband row", base.DEC, row_names),
  spider_error = ProtoField.bool("fabemu.spider.error", "Error (Er)"),
  spider_tail = ProtoField.bool("fabemu.spider.tail", "Tail"),
  spider_vch = ProtoField.uint8("fabemu.spider.vch", "VC (Vch)"),
  spider_vcr = ProtoField.uint8("fabemu.spider.vcr", "Credited VC (Vcr)"),
  spider_credit = ProtoField.uint8("fabemu.spider.credit", "Credit (Cr)"),
  spider_seq = ProtoField.uint8("fabemu.spider.seq", "LLP sequence number", base.DEC, nil, 0xF0),
  spider_ack = ProtoField.uint8("fabemu.spider.ack", "LLP acknowledge number", base.DEC, nil, 0x0F),
  spider_crc = ProtoField.uint16("fabemu.spider.crc", "CRC", base.HEX),
  spider_crc_status = ProtoField.uint8("fabemu.spider.crc_status", "CRC status", base.DEC, crc_names),
}

-- Figure 3: the row, and its fields.
local function sideband(b)
  if band(b, 0x80) == 0 then
    return { row = 0, tail = band(b, 0x40) ~= 0, vcr = band(rshift(b, 4), 3), cr = band(rshift(b, 2), 3),
             vch = band(b, 3), er = false }
  elseif band(b, 0xC0) == 0x80 then
    return { row = 1, tail = band(b, 0x20) ~= 0, vcr = band(rshift(b, 3), 3), cr = band(rshift(b, 2), 1),
             vch = band(b, 3), er = true }
  elseif band(b, 0xE0) == 0xC0 then
    return { row = 2, er = band(b, 0x10) ~= 0, tail = band(b, 0x08) ~= 0, r = band(b, 0x04), vch = band(b, 3) }
  end
  return { row = 3, vcr = band(rshift(b, 3), 3), cr = band(b, 7), tail = false, er = false }
end

-- ctx: fabemu (the Proto), hf, ef, expect, crc16_x25, CRC_* constants.
-- Returns the payload (string) when every micropacket is there, intact and
-- the layout parses, and the CRC status (stomped counts as bad for the
-- payload but is reported on its own).
local function dissect(ctx, enc, tree, h, n)
  local present = math.min(n, math.floor(enc:len() / MP_BYTES))
  local t = tree:add(ctx.fabemu, enc(0, present * MP_BYTES), "Spider message")
  t:add(f.spider_mps, n):set_generated()
  if present == 0 then return nil, ctx.CRC_UNVERIFIED end
  local nbytes = band(rshift(enc(6, 2):uint(), 1), 0xFF)  -- bits [72:65]
  local layout_ok = n >= 1 and n <= 16 and math.ceil(nbytes / 16) == n - 1
  local status, stomped = ctx.CRC_GOOD, false
  local vc0 = band(enc(16, 1):uint(), 3)
  local parts = {}
  for i = 0, present - 1 do
    local o = i * MP_BYTES
    local mt = t:add(f.spider_mp, enc(o, MP_BYTES))
    local kind
    if i == 0 then
      kind = "header"
      mt:add(f.spider_msg_seq, enc(o, 3))
      local src = rshift(enc(o + 3, 2):uint(), 7)
      ctx.expect(mt:add(f.spider_src, enc(o + 3, 2), src), "source", src, h.src % 512)
      local seg = band(rshift(enc(o + 4, 3):uint(), 13), 0x3FF)
      local nseg = band(rshift(enc(o + 5, 3):uint(), 11), 0x3FF)
      ctx.expect(mt:add(f.spider_seg, enc(o + 4, 3), seg), "segment", seg, h.seg % 1024)
      ctx.expect(mt:add(f.spider_nseg, enc(o + 5, 3), nseg), "segments", nseg, h.nseg % 1024)
      local cls = band(rshift(enc(o + 6, 1):uint(), 2), 1)
      ctx.expect(mt:add(f.spider_class, enc(o + 6, 1), cls), "class", cls, ctx.bits(h.flags, 5, 1))
      mt:add(f.spider_vector, enc(o + 6, 1), band(enc(o + 6, 1):uint(), 2) ~= 0)
      mt:add(f.spider_payload_bytes, enc(o + 6, 2), nbytes)
      -- [64:25]: 40 bits across bytes 7..12
      local vr = enc(o + 7, 6):uint64():rshift(1):band(UInt64.new(0xFFFFFFFF, 0xFF))
      mt:add(f.spider_vector_route, enc(o + 7, 6), vr)
      local low = enc(o + 13, 3):uint()  -- bits [23:0]
      local dst = band(rshift(low, 14), 0x1FF)
      ctx.expect(mt:add(f.spider_dst, enc(o + 13, 3), dst), "destination", dst, h.dst % 512)
      mt:add(f.spider_dir, enc(o + 14, 1), band(rshift(low, 10), 0xF))
      mt:add(f.spider_age, enc(o + 14, 2), band(rshift(low, 2), 0xFF))
      mt:add(f.spider_cc, enc(o + 15, 1))
    else
      kind = "data " .. (i - 1)
      mt:add(f.spider_data, enc(o, 16))
      parts[#parts + 1] = enc(o, 16):raw()
    end
    local sb = enc(o + 16, 1)
    local s = sideband(sb:uint())
    local st = mt:add(f.spider_sideband, sb)
    st:add(f.spider_sb_row, sb, s.row)
    if s.row ~= 3 then
      st:add(f.spider_error, sb, s.er)
      st:add(f.spider_tail, sb, s.tail)
      st:add(f.spider_vch, sb, s.vch)
    end
    if s.row ~= 2 then
      st:add(f.spider_vcr, sb, s.vcr)
      st:add(f.spider_credit, sb, s.cr)
    end
    if layout_ok and (s.row == 3 or s.tail ~= (i == n - 1) or s.vch ~= vc0 or (s.r or 0) ~= 0) then
      mt:add_proto_expert_info(ctx.ef.malformed, "Sideband disagrees with the micropacket's place in the message")
    end
    mt:add(f.spider_seq, enc(o + 17, 1))
    mt:add(f.spider_ack, enc(o + 17, 1))
    local carried = enc(o + 18, 2):le_uint()
    local bytes = {}
    for k = 0, 17 do bytes[#bytes + 1] = enc(o + k, 1):uint() end
    local computed = ctx.crc16_x25(bytes)
    mt:add_le(f.spider_crc, enc(o + 18, 2))
    local cs = carried == computed and 1 or (carried == bit.bxor(computed, 0xFFFF) and 3 or 0)
    local ci = mt:add(f.spider_crc_status, enc(o + 18, 2), cs):set_generated()
    if cs == 0 then
      status = ctx.CRC_BAD
      ci:add_proto_expert_info(ctx.ef.crc_bad,
        string.format("Bad CRC in micropacket %d: carried 0x%04x, computed 0x%04x", i, carried, computed))
    elseif cs == 3 then
      stomped = true
    end
    mt:set_text(string.format("Micropacket %d: %s, sideband 0x%02x, seq %d, CRC 0x%04x %s", i, kind,
                              sb:uint(), rshift(enc(o + 17, 1):uint(), 4), carried, crc_names[cs]))
  end
  if stomped then t:add_proto_expert_info(ctx.ef.stomped) end
  if not layout_ok then
    t:add_proto_expert_info(ctx.ef.malformed,
      string.format("%d micropackets do not hold %d payload bytes", n, nbytes))
    return nil, status
  end
  if present < n then return nil, ctx.CRC_UNVERIFIED end
  t:add(ctx.hf.crc_status, status):set_generated()
  if status ~= ctx.CRC_GOOD or stomped then return nil, status end
  return table.concat(parts):sub(1, nbytes), status
end

return { fields = f, dissect = dissect, unit_bytes = MP_BYTES }
