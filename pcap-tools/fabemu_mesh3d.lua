-- The low-latency 3D mesh's packets for the fabemu dissector (fabemu.lua
-- loads this file from its own directory): dataplane/codec/mesh3d_packet.h
-- and pcap-tools/FORMAT.md "3D mesh words". A packet is 3 to 32 words of
-- 80 bits (the link is an 80-bit bus), 10 bytes each, line i = bit i % 8 of
-- byte i / 8: the route word (Figure 12 of the petaflops 3D-mesh proposal),
-- the state's complement and the endpoints' fields, payload words, and a
-- check word with the CRC-16/X-25 and the transmit-error bit.

local WORD_BYTES = 10
local MAX_PAYLOAD = 290
local band = bit.band

local dir_names = { [0] = "+X", [1] = "-X", [2] = "+Y", [3] = "-Y", [4] = "+Z", [5] = "-Z",
                    [6] = "invalid", [7] = "end" }
local crc_names = { [0] = "Bad", [1] = "Good", [2] = "Unverified" }

local f = {
  mesh3d_words = ProtoField.uint8("fabemu.mesh3d.words", "Words"),
  mesh3d_word = ProtoField.bytes("fabemu.mesh3d.word", "Word"),
  mesh3d_state = ProtoField.uint8("fabemu.mesh3d.state", "State", base.HEX),
  mesh3d_route = ProtoField.uint8("fabemu.mesh3d.route", "Route (segment being traversed)"),
  mesh3d_how_far = ProtoField.uint8("fabemu.mesh3d.how_far", "HowFar (hops travelled in it)"),
  mesh3d_segment = ProtoField.uint8("fabemu.mesh3d.segment", "Segment"),
  mesh3d_dir = ProtoField.uint8("fabemu.mesh3d.dir", "Dir", base.DEC, dir_names),
  mesh3d_dist = ProtoField.uint8("fabemu.mesh3d.dist", "Dist (hops - 1)"),
  mesh3d_hops = ProtoField.uint8("fabemu.mesh3d.hops", "Hops"),
  mesh3d_route_hops = ProtoField.uint16("fabemu.mesh3d.route_hops", "Route hops"),
  mesh3d_words_field = ProtoField.uint8("fabemu.mesh3d.words_field", "Words (field + 1)"),
  mesh3d_class = ProtoField.uint8("fabemu.mesh3d.class", "Class", base.DEC,
                                  { [0] = "request", [1] = "response" }),
  mesh3d_payload_bytes = ProtoField.uint16("fabemu.mesh3d.payload_bytes", "Payload bytes"),
  mesh3d_msg_seq = ProtoField.uint16("fabemu.mesh3d.msg_seq", "Message sequence [15:0]"),
  mesh3d_complement = ProtoField.uint8("fabemu.mesh3d.complement", "State complement", base.HEX),
  mesh3d_state_ok = ProtoField.bool("fabemu.mesh3d.state_ok", "Complement matches the state"),
  mesh3d_src = ProtoField.uint24("fabemu.mesh3d.src", "Source endpoint"),
  mesh3d_dst = ProtoField.uint24("fabemu.mesh3d.dst", "Destination endpoint"),
  mesh3d_seg = ProtoField.uint16("fabemu.mesh3d.seg", "Segment index"),
  mesh3d_nseg = ProtoField.uint16("fabemu.mesh3d.nseg", "Segments"),
  mesh3d_reserved = ProtoField.uint64("fabemu.mesh3d.reserved", "Reserved (zero)", base.HEX),
  mesh3d_data = ProtoField.bytes("fabemu.mesh3d.data", "Payload word"),
  mesh3d_crc = ProtoField.uint16("fabemu.mesh3d.crc", "CRC", base.HEX),
  mesh3d_crc_status = ProtoField.uint8("fabemu.mesh3d.crc_status", "CRC status", base.DEC,
                                       crc_names),
  mesh3d_transmit_error = ProtoField.bool("fabemu.mesh3d.transmit_error",
                                          "Transmit error (forwarded before its CRC failed)"),
}

local e = {
  state_mismatch = ProtoExpert.new("fabemu.mesh3d.state_mismatch",
                                   "State does not match its complement: the packet is in error",
                                   expert.group.PROTOCOL, expert.severity.ERROR),
  transmit_error = ProtoExpert.new("fabemu.mesh3d.transmit_error_mark",
                                   "Transmit error: forwarded before its CRC failed, "
                                   .. "its destination discards it",
                                   expert.group.PROTOCOL, expert.severity.WARN),
}

-- Lines first .. first + n - 1 (n <= 24) of the word at byte o, and the
-- bytes holding them.
local function lines(enc, o, first, n)
  local b0 = math.floor(first / 8)
  local r = enc(o + b0, math.floor((first + n - 1) / 8) - b0 + 1)
  return math.floor(r:le_uint() / 2 ^ (first % 8)) % 2 ^ n, r
end

-- Adds lines first..first+n-1 of the word at o as field `pf`; returns the
-- value and the item.
local function add_lines(tree, pf, enc, o, first, n)
  local v, r = lines(enc, o, first, n)
  return v, tree:add(pf, r, v)
end

-- Word 0: state (Route, HowFar), six (Dir, Dist) segments, then "Etc.":
-- words - 1, class, payload bytes, message sequence [15:0].
local function word0(ctx, wt, enc, h, n)
  local st, si = add_lines(wt, f.mesh3d_state, enc, 0, 0, 7)
  si:add(f.mesh3d_route, enc(0, 1), band(st, 7))
  si:add(f.mesh3d_how_far, enc(0, 1), math.floor(st / 8))
  local route, hops, ended, route_ok = {}, 0, false, true
  for i = 0, 5 do
    local d, dr = lines(enc, 0, 7 + 7 * i, 3)
    local dist, sr = lines(enc, 0, 10 + 7 * i, 4)
    local _, r = lines(enc, 0, 7 + 7 * i, 7)
    local sg = wt:add(f.mesh3d_segment, r, i)
    sg:add(f.mesh3d_dir, dr, d)
    sg:add(f.mesh3d_dist, sr, dist)
    if d == 7 then
      ended = true
      sg:set_text(string.format("Segment %d: end", i))
    else
      if d == 6 or ended then route_ok = false end
      sg:add(f.mesh3d_hops, r, dist + 1):set_generated()
      sg:set_text(string.format("Segment %d: %s %d hop%s", i, dir_names[d], dist + 1,
                                dist > 0 and "s" or ""))
      if not ended then
        hops = hops + dist + 1
        route[#route + 1] = dir_names[d] .. " " .. (dist + 1)
      end
    end
  end
  wt:add(f.mesh3d_route_hops, enc(0, 7), hops):set_generated()
  if not route_ok then
    wt:add_proto_expert_info(ctx.ef.malformed,
                             "Route: direction code 6, or a segment after the end")
  end
  local words, wr = lines(enc, 0, 49, 5)
  words = words + 1
  ctx.expect(wt:add(f.mesh3d_words_field, wr, words), "words", words, n)
  local cls = add_lines(wt, f.mesh3d_class, enc, 0, 54, 1)
  local nbytes = add_lines(wt, f.mesh3d_payload_bytes, enc, 0, 55, 9)
  local seq, qi = add_lines(wt, f.mesh3d_msg_seq, enc, 0, 64, 16)
  ctx.expect(qi, "message sequence [15:0]", seq, h.msg_seq % 2 ^ 16)
  ctx.expect(wt, "class", cls, ctx.bits(h.flags, 5, 1))
  wt:set_text(string.format("Word 0: route %s, state Route %d HowFar %d, %d payload bytes",
                            #route > 0 and table.concat(route, ", ") or "(none)", band(st, 7),
                            math.floor(st / 8), nbytes))
  return { state = st, nbytes = nbytes, words = words, route_ok = route_ok }
end

-- Word 1: the state's complement, source, destination, segment, segments.
local function word1(ctx, wt, enc, h, w0)
  local o = WORD_BYTES
  local comp, ci = add_lines(wt, f.mesh3d_complement, enc, o, 0, 7)
  local ok = bit.bxor(comp, w0.state) == 0x7F
  ci:add(f.mesh3d_state_ok, enc(o, 1), ok):set_generated()
  if not ok then
    ci:add_proto_expert_info(ctx.mesh3d_ef.state_mismatch,
      string.format("State 0x%02x, complement 0x%02x (expected 0x%02x)", w0.state, comp,
                    bit.bxor(w0.state, 0x7F)))
  end
  local src, si = add_lines(wt, f.mesh3d_src, enc, o, 7, 20)
  ctx.expect(si, "source", src, h.src % 2 ^ 20)
  local dst, di = add_lines(wt, f.mesh3d_dst, enc, o, 27, 20)
  ctx.expect(di, "destination", dst, h.dst % 2 ^ 20)
  local seg, gi = add_lines(wt, f.mesh3d_seg, enc, o, 47, 10)
  ctx.expect(gi, "segment", seg, h.seg % 2 ^ 10)
  local nseg, ni = add_lines(wt, f.mesh3d_nseg, enc, o, 57, 10)
  ctx.expect(ni, "segments", nseg, h.nseg % 2 ^ 10)
  local res, rr = lines(enc, o, 67, 13)
  wt:add(f.mesh3d_reserved, rr, UInt64.new(res))
  wt:set_text(string.format("Word 1: complement 0x%02x, ep%d -> ep%d, segment %d of %d", comp, src,
                            dst, seg, nseg))
  return ok, res == 0
end

-- The check word at o: CRC [0:15], transmit error [16], zero [17:79].
local function check_word(ctx, wt, enc, o, n)
  local carried = enc(o, 2):le_uint()
  wt:add_le(f.mesh3d_crc, enc(o, 2))
  local bytes = {}
  for k = 0, o - 1 do bytes[#bytes + 1] = enc(k, 1):uint() end
  bytes[1] = band(bytes[1], 0x80)  -- the state and its complement are outside the CRC
  bytes[WORD_BYTES + 1] = band(bytes[WORD_BYTES + 1], 0x80)
  for k = o + 2, o + WORD_BYTES - 1 do bytes[#bytes + 1] = enc(k, 1):uint() end  -- lines 16-79
  local computed = ctx.crc16_x25(bytes)
  wt:add(ctx.hf.crc_computed, enc(o, 2), computed):set_generated()
  local status = carried == computed and ctx.CRC_GOOD or ctx.CRC_BAD
  local ci = wt:add(f.mesh3d_crc_status, enc(o, 2), status):set_generated()
  if status == ctx.CRC_BAD then
    ci:add_proto_expert_info(ctx.ef.crc_bad,
      string.format("Bad CRC: carried 0x%04x, computed 0x%04x", carried, computed))
  end
  local te = band(enc(o + 2, 1):uint(), 1) == 1
  local ti = wt:add(f.mesh3d_transmit_error, enc(o + 2, 1), te)
  if te then ti:add_proto_expert_info(ctx.mesh3d_ef.transmit_error) end
  local res = enc(o + 2, 8):le_uint64():rshift(1)
  wt:add(f.mesh3d_reserved, enc(o + 2, 8), res)
  wt:set_text(string.format("Word %d: check, CRC 0x%04x %s%s", n - 1, carried, crc_names[status],
                            te and ", transmit error" or ""))
  return status, te, res == UInt64.new(0)
end

-- ctx: fabemu (the Proto), hf, ef, mesh3d_ef, expect, bits, crc16_x25,
-- CRC_* constants. Returns the payload (string) when every word is there,
-- the layout parses and the packet is intact (CRC good, no transmit error,
-- the state matching its complement), and the CRC status.
local function dissect(ctx, enc, tree, h, n)
  local present = math.min(n, math.floor(enc:len() / WORD_BYTES))
  local t = tree:add(ctx.fabemu, enc(0, present * WORD_BYTES), "3D mesh packet")
  t:add(f.mesh3d_words, n):set_generated()
  if present == 0 then return nil, ctx.CRC_UNVERIFIED end
  if n < 3 or n > 32 then
    t:add_proto_expert_info(ctx.ef.malformed, string.format("%d words: a packet is 3 to 32", n))
  end
  local w0, state_ok, reserved_ok, status, te
  local parts = {}
  for i = 0, present - 1 do
    local o = i * WORD_BYTES
    local wt = t:add(f.mesh3d_word, enc(o, WORD_BYTES))
    if i == 0 then
      w0 = word0(ctx, wt, enc, h, n)
    elseif i == 1 then
      state_ok, reserved_ok = word1(ctx, wt, enc, h, w0)
    elseif i == n - 1 then -- (n >= 3 here)
      local res_ok
      status, te, res_ok = check_word(ctx, wt, enc, o, n)
      reserved_ok = reserved_ok and res_ok
    else
      wt:add(f.mesh3d_data, enc(o, WORD_BYTES))
      parts[#parts + 1] = enc(o, WORD_BYTES):raw()
      wt:set_text(string.format("Word %d: payload %d", i, i - 2))
    end
  end
  if present < 2 then return nil, ctx.CRC_UNVERIFIED end
  -- Header, payload, check word: the shortest encoding only (mesh3d_format).
  local sizes_ok = w0.words == n and w0.nbytes <= MAX_PAYLOAD and
                   3 + math.ceil(w0.nbytes / WORD_BYTES) == n
  if not sizes_ok then
    t:add_proto_expert_info(ctx.ef.malformed,
      string.format("%d words do not hold %d payload bytes", n, w0.nbytes))
  end
  local layout_ok = sizes_ok and w0.route_ok
  if present < n or not status then return nil, ctx.CRC_UNVERIFIED end
  if not reserved_ok then
    t:add_proto_expert_info(ctx.ef.malformed, "Reserved lines are not zero")
  end
  t:add(ctx.hf.crc_status, status):set_generated()
  if not layout_ok or not reserved_ok or status ~= ctx.CRC_GOOD or te or not state_ok then
    return nil, status
  end
  return table.concat(parts):sub(1, w0.nbytes), status
end

return { fields = f, experts = e, dissect = dissect, unit_bytes = WORD_BYTES }
