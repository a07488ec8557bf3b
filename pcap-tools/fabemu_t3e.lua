-- T3E flits for the fabemu dissector (fabemu.lua loads this file from its
-- own directory): dataplane/codec/t3e_flit.h and pcap-tools/FORMAT.md "T3E
-- flits". 9 bytes each: byte 0 the control bits (69..64), bytes 1..8 the
-- 64-bit word; header flits then payload words (Scott & Thorson, Hot
-- Interconnects 1996, section 2).

local FLIT_BYTES, WORD_BYTES = 9, 8
local band, rshift = bit.band, bit.rshift
local class_names = { [0] = "request", [1] = "response" }

local f = {
  t3e_flits = ProtoField.uint8("fabemu.t3e.flits", "Flits"),
  t3e_flit = ProtoField.bytes("fabemu.t3e.flit", "Flit"),
  t3e_ctl_reserved = ProtoField.uint8("fabemu.t3e.ctl_reserved", "Reserved (71..70)", base.HEX, nil, 0xC0),
  t3e_head = ProtoField.bool("fabemu.t3e.head", "Head", 8, nil, 0x20),
  t3e_tail = ProtoField.bool("fabemu.t3e.tail", "Tail", 8, nil, 0x10),
  t3e_header = ProtoField.bool("fabemu.t3e.header", "Header flit", 8, nil, 0x08),
  t3e_class = ProtoField.uint8("fabemu.t3e.class", "Class", base.DEC, class_names, 0x04),
  t3e_sideband = ProtoField.uint8("fabemu.t3e.sideband", "Sideband", base.DEC, nil, 0x03),
  t3e_dst = ProtoField.uint16("fabemu.t3e.dst", "Destination node"),
  t3e_command = ProtoField.uint8("fabemu.t3e.command", "Command", base.DEC,
                                 { [0] = "data request", [1] = "data response", [2] = "Get",
                                   [3] = "Get response", [4] = "vector Get", [5] = "vector Get response",
                                   [6] = "Put", [7] = "vector Put", [8] = "Put ack" }, 0xFC),
  t3e_payload_bytes = ProtoField.uint16("fabemu.t3e.payload_bytes", "Payload bytes", base.DEC, nil, 0x03F8),
  t3e_header_flits = ProtoField.uint8("fabemu.t3e.header_flits", "Header flits", base.DEC, nil, 0x07),
  t3e_route_tag = ProtoField.uint32("fabemu.t3e.route_tag", "Routing tag", base.HEX),
  t3e_src = ProtoField.uint16("fabemu.t3e.src", "Source node"),
  t3e_msg_seq = ProtoField.uint24("fabemu.t3e.msg_seq", "Message sequence [23:0]"),
  t3e_seg = ProtoField.uint16("fabemu.t3e.seg", "Segment [11:0]", base.DEC, nil, 0xFFF0),
  t3e_nseg = ProtoField.uint16("fabemu.t3e.nseg", "Segments [11:0]", base.DEC, nil, 0x0FFF),
  t3e_addr = ProtoField.uint64("fabemu.t3e.addr", "Address (packet id)", base.HEX),
  t3e_reserved_word = ProtoField.uint64("fabemu.t3e.reserved_word", "Reserved", base.HEX),
  t3e_word = ProtoField.uint64("fabemu.t3e.word", "Payload word", base.HEX),
}

-- Control byte the codec writes for flit i of n (t3e_flit.cpp), sideband
-- bits left out.
local function t3e_control(i, n, hdr, response)
  return (i == 0 and 0x20 or 0) + (i == n - 1 and 0x10 or 0) + (i < hdr and 0x08 or 0) +
         (response and 0x04 or 0)
end

local function dissect(ctx, enc, tree, h, n)
  local present = math.min(n, math.floor(enc:len() / FLIT_BYTES))
  local t = tree:add(ctx.fabemu, enc(0, present * FLIT_BYTES), "T3E packet")
  t:add(f.t3e_flits, n):set_generated()
  if present == 0 then return nil end

  local hdr = band(enc(4, 1):uint(), 0x07)
  local nbytes = rshift(band(enc(3, 2):uint(), 0x03F8), 3)
  local response = band(enc(0, 1):uint(), 0x04) ~= 0
  local layout_ok = hdr >= 1 and hdr <= n and math.ceil(nbytes / WORD_BYTES) == n - hdr
  local words = {}

  for i = 0, present - 1 do
    local o = i * FLIT_BYTES
    local c, w = enc(o, 1), enc(o + 1, 8)
    local ft = t:add(f.t3e_flit, enc(o, FLIT_BYTES))
    ft:add(f.t3e_ctl_reserved, c)
    ft:add(f.t3e_head, c)
    ft:add(f.t3e_tail, c)
    ft:add(f.t3e_header, c)
    ft:add(f.t3e_class, c)
    ft:add(f.t3e_sideband, c)
    if layout_ok and band(c:uint(), 0xFC) ~= t3e_control(i, n, hdr, response) then
      ft:add_proto_expert_info(ctx.ef.malformed, "Control bits disagree with the flit's place in the packet")
    end
    local kind
    if i == 0 then
      kind = "header 0"
      ctx.expect(ft:add(f.t3e_dst, enc(o + 1, 2)), "destination", enc(o + 1, 2):uint(), h.dst % 2 ^ 16)
      ft:add(f.t3e_command, enc(o + 3, 1))
      ft:add(f.t3e_payload_bytes, enc(o + 3, 2))
      ft:add(f.t3e_header_flits, enc(o + 4, 1))
      ft:add(f.t3e_route_tag, enc(o + 5, 4))
      ctx.expect(ft, "class", response and 1 or 0, ctx.bits(h.flags, 5, 1))
    elseif i == 1 and i < hdr then
      kind = "header 1"
      ctx.expect(ft:add(f.t3e_src, enc(o + 1, 2)), "source", enc(o + 1, 2):uint(), h.src % 2 ^ 16)
      ctx.expect(ft:add(f.t3e_msg_seq, enc(o + 3, 3)), "message sequence", enc(o + 3, 3):uint(),
             h.msg_seq % 2 ^ 24)
      ctx.expect(ft:add(f.t3e_seg, enc(o + 6, 2)), "segment", rshift(enc(o + 6, 2):uint(), 4), h.seg % 2 ^ 12)
      ctx.expect(ft:add(f.t3e_nseg, enc(o + 7, 2)), "segments", band(enc(o + 7, 2):uint(), 0x0FFF),
             h.nseg % 2 ^ 12)
    elseif i == 2 and i < hdr then
      kind = "header 2"
      local it = ft:add(f.t3e_addr, w)
      ctx.expect(it, "address (packet id)", tostring(w:uint64()), tostring(h.id))
    elseif i < hdr then
      kind = "header " .. i
      ft:add(f.t3e_reserved_word, w)
    else
      kind = "payload " .. (i - hdr)
      ft:add(f.t3e_word, w)
      words[#words + 1] = w:raw()
    end
    ft:set_text(string.format("Flit %d: %s (control 0x%02x, word 0x%s)", i, kind, c:uint(),
                              w:bytes():tohex(true)))
  end

  if not layout_ok then
    t:add_proto_expert_info(ctx.ef.malformed,
      string.format("%d flits do not hold %d header flits and %d payload bytes", n, hdr, nbytes))
    return nil
  end
  if present < n then return nil end
  return table.concat(words):sub(1, nbytes)
end

return { fields = f, dissect = dissect, unit_bytes = FLIT_BYTES }
