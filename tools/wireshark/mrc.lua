-- SPDX-License-Identifier: GPL-2.0
--
-- Wireshark dissector for MRC (Multipath Reliable Connection) as rdma_mrc
-- sends it.  The layouts are those of Documentation/mrc/wire-format.rst.
--
--   tshark -X lua_script:tools/wireshark/mrc.lua -r cap.pcap -Y mrc
--   or copy it into ~/.local/lib/wireshark/plugins/
--
-- It takes UDP port 4791 (preference mrc.udp_port) from the RoCEv2
-- dissector and hands it back packets whose opcode is not in the MRC space.

local mrc = Proto("mrc", "Multipath Reliable Connection")

-- ---------------------------------------------------------------- names

local OP = {
	WRITE_FIRST = 0xC6, WRITE_MIDDLE = 0xC7, WRITE_LAST = 0xC8,
	WRITE_LAST_IMM = 0xC9, WRITE_ONLY = 0xCA, WRITE_ONLY_IMM = 0xCB,
	ACK = 0xD1, EP_REQUEST = 0xD8, EP_RESPONSE = 0xD9,
	SACK = 0xDC, NACK = 0xDD, PROBE = 0xDE,
}

local op_names = {
	[0xC6] = "WRITE First", [0xC7] = "WRITE Middle", [0xC8] = "WRITE Last",
	[0xC9] = "WRITE Last with Immediate", [0xCA] = "WRITE Only",
	[0xCB] = "WRITE Only with Immediate", [0xD1] = "Acknowledge",
	[0xD8] = "Endpoint Request", [0xD9] = "Endpoint Response",
	[0xDC] = "SACK", [0xDD] = "NACK", [0xDE] = "PROBE",
}

-- IBTA RC opcodes, only to say what a non-MRC packet is.
local rc_names = {
	[0x00] = "SEND First", [0x01] = "SEND Middle", [0x02] = "SEND Last",
	[0x03] = "SEND Last Imm", [0x04] = "SEND Only", [0x05] = "SEND Only Imm",
	[0x06] = "RDMA WRITE First", [0x07] = "RDMA WRITE Middle",
	[0x08] = "RDMA WRITE Last", [0x09] = "RDMA WRITE Last Imm",
	[0x0A] = "RDMA WRITE Only", [0x0B] = "RDMA WRITE Only Imm",
	[0x0C] = "RDMA READ Request", [0x0D] = "RDMA READ Response First",
	[0x0E] = "RDMA READ Response Middle", [0x0F] = "RDMA READ Response Last",
	[0x10] = "RDMA READ Response Only", [0x11] = "Acknowledge",
	[0x12] = "ATOMIC Acknowledge", [0x13] = "CmpSwap", [0x14] = "FetchAdd",
	[0x16] = "SEND Last Inval", [0x17] = "SEND Only Inval",
}

local function opcode_name(op)
	if bit32.band(op, 0xE0) == 0xC0 then
		return op_names[op] or "unknown MRC opcode"
	end
	if bit32.band(op, 0xE0) == 0x00 then
		return "not MRC (RC " .. (rc_names[op] or "reserved") .. ")"
	end
	return "not MRC"
end

local opcode_vs = {}
for op = 0, 255 do
	opcode_vs[op] = opcode_name(op)
end

local ep_op_vs = { [0] = "Port Status Update", [1] = "EV probe", [2] = "reserved",
		   [3] = "reserved" }
local m_vs = { [0] = "none", [1] = "SKIP_ONCE", [2] = "ALWAYS_SKIP", [3] = "reserved" }

local reason_vs = {
	[0x01] = "TRIMMED", [0x02] = "TRIMMED_LASTHOP", [0x06] = "NO_BITMAP",
	[0x07] = "NO_PKT_BUFFER", [0x0A] = "NO_RESOURCE",
	[0x0B] = "PSN_OOR_WINDOW", [0x19] = "UNEXP_EVENT",
}

local syndrome_vs = {
	[0x1F] = "ACK",
	[0x60] = "NAK PSN sequence error (unused by MRC)",
	[0x61] = "NAK invalid request",
	[0x62] = "NAK remote access error",
	[0x63] = "NAK remote operational error",
}

local icrc_status_vs = { [0] = "unverified", [1] = "good", [2] = "bad" }

-- ---------------------------------------------------------------- fields

local F = ProtoField
local f = {
	-- BTH
	opcode     = F.uint8("mrc.opcode", "Opcode", base.HEX, opcode_vs),
	not_mrc    = F.bool("mrc.not_mrc", "Not MRC"),
	se         = F.bool("mrc.se", "SE (unused)", 8, nil, 0x80),
	migreq     = F.bool("mrc.migreq", "M (unused)", 8, nil, 0x40),
	padcnt     = F.uint8("mrc.padcnt", "PadCnt", base.DEC, nil, 0x30),
	tver       = F.uint8("mrc.tver", "TVer", base.DEC, nil, 0x0F),
	pkey       = F.uint16("mrc.pkey", "P_Key", base.HEX),
	resv8a     = F.uint8("mrc.resv8a", "Reserved (variant)", base.HEX),
	dqpn       = F.uint24("mrc.dqpn", "DestQP", base.HEX),
	ackreq     = F.bool("mrc.ackreq", "AckReq", 8, nil, 0x80),
	r          = F.bool("mrc.r", "R (reserved)", 8, nil, 0x40),
	rtx        = F.bool("mrc.rtx", "rtx (retransmission)", 8, nil, 0x20),
	tsh        = F.bool("mrc.tsh", "tsh (TSETH follows)", 8, nil, 0x10),
	resv4      = F.uint8("mrc.resv4", "Reserved", base.HEX, nil, 0x0F),
	psn        = F.uint24("mrc.psn", "PSN", base.DEC),
	req_id     = F.uint16("mrc.req_id", "Request id (PSN[15:0])", base.HEX),
	-- METH
	rqmsn      = F.uint16("mrc.meth.rqmsn", "RQMSN", base.DEC),
	msn        = F.uint16("mrc.meth.msn", "MSN", base.DEC),
	-- TSETH
	ts         = F.uint16("mrc.tseth.ts", "Timestamp", base.DEC),
	ts_tsr     = F.bool("mrc.tseth.tsr", "TSR", 16, nil, 0x8000),
	ts_rsvd    = F.uint16("mrc.tseth.rsvd", "Reserved", base.HEX, nil, 0x7FF0),
	ts_ftype   = F.uint16("mrc.tseth.ftype", "Format type", base.DEC, nil, 0x000F),
	-- RETH
	va         = F.uint64("mrc.reth.va", "Virtual address", base.HEX),
	rkey       = F.uint32("mrc.reth.rkey", "R_Key", base.HEX),
	dmalen     = F.uint32("mrc.reth.dmalen", "DMA length", base.DEC),
	-- ImmDt
	imm        = F.uint32("mrc.imm", "Immediate data", base.HEX),
	-- AETH
	syndrome   = F.uint8("mrc.aeth.syndrome", "Syndrome", base.HEX, syndrome_vs),
	aeth_msn   = F.uint24("mrc.aeth.msn", "MSN", base.DEC),
	-- SETH
	s_flags    = F.uint16("mrc.seth.flags", "Flags", base.HEX),
	s_m        = F.uint16("mrc.seth.m", "M", base.DEC, m_vs, 0x0060),
	s_pr       = F.bool("mrc.seth.pr", "PR (answers a probe)", 16, nil, 0x0002),
	s_ackoff   = F.int16("mrc.seth.ack_psn_off", "ACK PSN offset", base.DEC),
	s_ackpsn   = F.uint24("mrc.seth.ack_psn", "ACK PSN", base.DEC),
	s_probe    = F.uint16("mrc.seth.probe_id", "Probe id", base.HEX),
	s_entropy  = F.uint32("mrc.seth.entropy", "Entropy", base.HEX),
	s_scid     = F.uint16("mrc.seth.scid", "Source id", base.HEX),
	s_dcid     = F.uint16("mrc.seth.dcid", "Destination id", base.HEX),
	s_dups     = F.uint8("mrc.seth.dups", "Duplicates received (rdma_mrc, mod 256)", base.DEC),
	s_cack     = F.uint24("mrc.seth.cack_psn", "Cumulative ACK PSN", base.DEC),
	s_cctype   = F.uint8("mrc.seth.cc_type", "CC type", base.DEC, nil, 0xF0),
	s_ccflags  = F.uint8("mrc.seth.cc_flags", "CC flags", base.HEX, nil, 0x0F),
	s_mpr      = F.uint8("mrc.seth.mpr", "MPR (x128 PSNs)", base.DEC),
	s_sackoff  = F.int16("mrc.seth.sack_off", "SACK offset", base.DEC),
	s_base     = F.uint24("mrc.seth.sack_base", "SACK base PSN", base.DEC),
	s_bitmap   = F.uint64("mrc.seth.bitmap", "SACK bitmap", base.HEX),
	s_sacked   = F.string("mrc.seth.sacked", "PSNs marked received"),
	-- CC_STATE
	cc_ts      = F.uint16("mrc.cc.ts", "Reflected timestamp", base.DEC),
	cc_rsvd    = F.uint16("mrc.cc.rsvd", "Reserved", base.DEC, nil, 0x8000),
	cc_ooo     = F.uint16("mrc.cc.ooo_count", "Out-of-order count", base.DEC, nil, 0x7FFF),
	cc_rc      = F.bool("mrc.cc.rc", "rc (restore cwnd)", 32, nil, 0x80000000),
	cc_pen     = F.uint32("mrc.cc.pen", "Receiver cwnd penalty", base.DEC, nil, 0x7F000000),
	cc_rcvd    = F.uint32("mrc.cc.rcvd_bytes", "Received bytes (x256)", base.DEC, nil, 0x00FFFFFF),
	-- NETH
	n_rsvd0    = F.uint16("mrc.neth.rsvd0", "Reserved", base.HEX),
	n_reason   = F.uint8("mrc.neth.reason", "Reason", base.HEX, reason_vs),
	n_vendor   = F.uint8("mrc.neth.vendor", "Vendor info", base.HEX),
	n_entropy  = F.uint32("mrc.neth.entropy", "Entropy", base.HEX),
	n_scid     = F.uint16("mrc.neth.scid", "Source id", base.HEX),
	n_dcid     = F.uint16("mrc.neth.dcid", "Destination id", base.HEX),
	n_rsvd1    = F.uint8("mrc.neth.rsvd1", "Reserved", base.HEX),
	n_psn      = F.uint24("mrc.neth.psn", "NACK PSN", base.DEC),
	n_cctype   = F.uint8("mrc.neth.cc_type", "CC type", base.DEC, nil, 0xF0),
	n_ccflags  = F.uint8("mrc.neth.cc_flags", "CC flags", base.HEX, nil, 0x0F),
	n_rsvd2    = F.uint8("mrc.neth.rsvd2", "Reserved", base.HEX),
	n_ts       = F.uint16("mrc.neth.ts", "Reflected timestamp", base.DEC),
	-- PETH
	p_rsvd0    = F.uint24("mrc.peth.rsvd0", "Reserved", base.HEX),
	p_vendor   = F.uint8("mrc.peth.vendor", "Vendor info", base.HEX),
	p_probe    = F.uint16("mrc.peth.probe_id", "Probe id", base.HEX),
	p_rsvd1    = F.uint16("mrc.peth.rsvd1", "Reserved", base.HEX),
	p_scid     = F.uint16("mrc.peth.scid", "Source id", base.HEX),
	p_dcid     = F.uint16("mrc.peth.dcid", "Destination id", base.HEX),
	p_ts       = F.uint16("mrc.peth.ts", "Timestamp", base.DEC),
	p_tsr      = F.bool("mrc.peth.tsr", "TSR", 16, nil, 0x8000),
	p_ftype    = F.uint16("mrc.peth.ftype", "Format type", base.DEC, nil, 0x000F),
	-- ERTH / EETH: endpoint operations
	e_rsvd0    = F.uint16("mrc.erth.rsvd0", "Reserved", base.HEX),
	e_oprsvd   = F.uint8("mrc.erth.op_rsvd", "Reserved", base.HEX, nil, 0xFC),
	e_op       = F.uint8("mrc.erth.op", "Operation", base.DEC, ep_op_vs, 0x03),
	e_vendor   = F.uint8("mrc.erth.vendor", "Vendor info", base.HEX),
	e_mask     = F.uint32("mrc.erth.port_status_mask", "Port status mask", base.HEX),
	e_rsvd     = F.uint32("mrc.erth.rsvd", "Reserved", base.HEX),
	e_ts       = F.uint16("mrc.erth.ts", "Timestamp", base.DEC),
	e_tsr      = F.bool("mrc.erth.tsr", "TSR", 16, nil, 0x8000),
	e_ftype    = F.uint16("mrc.erth.ftype", "Format type", base.DEC, nil, 0x000F),
	r_rsvd0    = F.uint16("mrc.eeth.rsvd0", "Reserved", base.HEX),
	r_sv       = F.bool("mrc.eeth.sv", "SV (service time valid)", 8, nil, 0x80),
	r_oprsvd   = F.uint8("mrc.eeth.op_rsvd", "Reserved", base.HEX, nil, 0x7C),
	r_op       = F.uint8("mrc.eeth.op", "Operation", base.DEC, ep_op_vs, 0x03),
	r_vendor   = F.uint8("mrc.eeth.vendor", "Vendor info", base.HEX),
	r_mask     = F.uint32("mrc.eeth.port_status_mask", "Port status mask (echo)", base.HEX),
	r_entropy  = F.uint32("mrc.eeth.entropy", "Request's EV", base.HEX),
	r_port     = F.uint8("mrc.eeth.req_port", "Port the request arrived on", base.DEC),
	r_rsvd1    = F.uint24("mrc.eeth.rsvd1", "Reserved", base.HEX),
	r_ts       = F.uint16("mrc.eeth.req_ts", "Request timestamp (echo)", base.DEC),
	r_tsr      = F.bool("mrc.eeth.req_tsr", "Request TSR", 16, nil, 0x8000),
	r_ftype    = F.uint16("mrc.eeth.req_ftype", "Request format type", base.DEC, nil,
			      0x000F),
	r_svc      = F.uint32("mrc.eeth.svc_time", "Service time (ns)", base.DEC),
	r_rsvd2    = F.bytes("mrc.eeth.rsvd2", "Reserved"),
	-- payload, trailer, diagnostics
	payload_len = F.uint32("mrc.payload_len", "Payload length", base.DEC),
	payload    = F.bytes("mrc.payload", "Payload"),
	pad        = F.bytes("mrc.pad", "Pad"),
	icrc       = F.uint32("mrc.icrc", "ICRC", base.HEX),
	icrc_calc  = F.uint32("mrc.icrc.computed", "ICRC computed", base.HEX),
	icrc_st    = F.uint8("mrc.icrc.status", "ICRC status", base.DEC, icrc_status_vs),
	dscp_class = F.string("mrc.dscp_class", "DSCP class"),
	trimmed    = F.bool("mrc.trimmed", "Trimmed by the network"),
	malformed  = F.string("mrc.malformed", "Malformed"),
	trailing   = F.bytes("mrc.trailing", "Unexpected trailing bytes"),
	unknown    = F.bytes("mrc.data", "Undecoded data"),
}

local flist = {}
for _, v in pairs(f) do
	flist[#flist + 1] = v
end
mrc.fields = flist

local ef = {
	malformed = ProtoExpert.new("mrc.expert.malformed", "Malformed MRC packet",
				    expert.group.MALFORMED, expert.severity.ERROR),
	icrc_bad  = ProtoExpert.new("mrc.expert.icrc_bad", "Bad ICRC",
				    expert.group.CHECKSUM, expert.severity.ERROR),
	not_mrc   = ProtoExpert.new("mrc.expert.not_mrc", "Opcode outside the MRC space",
				    expert.group.PROTOCOL, expert.severity.NOTE),
	unknown   = ProtoExpert.new("mrc.expert.unknown_opcode", "Undefined MRC opcode",
				    expert.group.UNDECODED, expert.severity.WARN),
	field     = ProtoExpert.new("mrc.expert.field", "Field value outside the rules",
				    expert.group.PROTOCOL, expert.severity.WARN),
	trimmed   = ProtoExpert.new("mrc.expert.trimmed", "Packet trimmed by a switch",
				    expert.group.SEQUENCE, expert.severity.NOTE),
	trailing  = ProtoExpert.new("mrc.expert.trailing", "Bytes after the last header",
				    expert.group.PROTOCOL, expert.severity.WARN),
}
mrc.experts = { ef.malformed, ef.icrc_bad, ef.not_mrc, ef.unknown, ef.field,
		ef.trimmed, ef.trailing }

-- ---------------------------------------------------------------- preferences

local DEFAULT_PORT = 4791
mrc.prefs.udp_port = Pref.uint("UDP port", DEFAULT_PORT, "UDP destination port of MRC (module parameter udp_port)")
mrc.prefs.handoff = Pref.bool("Hand non-MRC opcodes to RoCE", true,
			      "Pass packets whose opcode is outside 0xC0-0xDF to the dissector the port had before")
mrc.prefs.check_icrc = Pref.bool("Verify ICRC", true, "Recompute the RoCEv2 ICRC of every packet")
mrc.prefs.dscp_no_trim = Pref.uint("DSCP NO_TRIM", 0, "")
mrc.prefs.dscp_trimmable = Pref.uint("DSCP TRIMMABLE", 8, "")
mrc.prefs.dscp_trimmable_retx = Pref.uint("DSCP TRIMMABLE_RETX", 16, "")
mrc.prefs.dscp_trimmed = Pref.uint("DSCP TRIMMED", 24, "")
mrc.prefs.dscp_trimmed_lasthop = Pref.uint("DSCP TRIMMED_LASTHOP", 26, "")
mrc.prefs.dscp_control = Pref.uint("DSCP CONTROL", 46, "")

-- ---------------------------------------------------------------- lower layers

local fx_ip = Field.new("ip")
local fx_ipv6 = Field.new("ipv6")
local fx_udp = Field.new("udp")
local fx_dscp4 = Field.new("ip.dsfield.dscp")
local fx_dscp6 = Field.new("ipv6.tclass.dscp")

-- The last instance of a field that starts before byte `limit` of the frame.
local function last_before(fx, limit)
	local best
	for _, fi in ipairs({ fx() }) do
		if fi.offset < limit and (best == nil or fi.offset > best.offset) then
			best = fi
		end
	end
	return best
end

-- IP and UDP header bytes in front of this UDP payload, and the IP version.
local function lower_headers(tvb)
	local at = tvb:offset()
	local udp = last_before(fx_udp, at)
	if udp == nil or udp.offset + 8 ~= at then
		return nil
	end
	local ip4 = last_before(fx_ip, udp.offset)
	local ip6 = last_before(fx_ipv6, udp.offset)
	local udp_raw = udp.range:bytes():raw(0, 8)
	if ip4 and (ip6 == nil or ip4.offset > ip6.offset) then
		if ip4.offset + ip4.len ~= udp.offset then
			return nil
		end
		return 4, ip4.range:bytes():raw(), udp_raw
	elseif ip6 then
		if ip6.offset + 40 ~= udp.offset then
			return nil	-- extension headers: not RoCEv2-shaped
		end
		return 6, ip6.range:bytes():raw(0, 40), udp_raw
	end
	return nil
end

local function dscp_of(tvb)
	local at = tvb:offset()
	local d4 = last_before(fx_dscp4, at)
	local d6 = last_before(fx_dscp6, at)
	if d4 and (d6 == nil or d4.offset > d6.offset) then
		return d4.value
	elseif d6 then
		return d6.value
	end
	return nil
end

local function dscp_class(d)
	local p = mrc.prefs
	if d == nil then return nil end
	if d == p.dscp_control then return "CONTROL" end
	if d == p.dscp_trimmed then return "TRIMMED" end
	if d == p.dscp_trimmed_lasthop then return "TRIMMED_LASTHOP" end
	if d == p.dscp_trimmable_retx then return "TRIMMABLE_RETX" end
	if d == p.dscp_trimmable then return "TRIMMABLE" end
	if d == p.dscp_no_trim then return "NO_TRIM" end
	return "other"
end

-- ---------------------------------------------------------------- ICRC

local crc_tab = {}
for i = 0, 255 do
	local c = i
	for _ = 1, 8 do
		if bit32.band(c, 1) == 1 then
			c = bit32.bxor(bit32.rshift(c, 1), 0xEDB88320)
		else
			c = bit32.rshift(c, 1)
		end
	end
	crc_tab[i] = c
end

-- Reflected CRC-32 (IEEE 802.3) register update over a Lua string.
local function crc_update(c, s)
	local band, bxor, rshift = bit32.band, bit32.bxor, bit32.rshift
	for i = 1, #s do
		c = bxor(crc_tab[band(bxor(c, s:byte(i)), 0xFF)], rshift(c, 8))
	end
	return c
end

local function set_ones(s, from, to)	-- 1-based inclusive
	return s:sub(1, from - 1) .. string.rep("\255", to - from + 1) .. s:sub(to + 1)
end

-- The ICRC value (CRC-32 as zlib computes it) of this packet, or nil.
local function compute_icrc(tvb, icrc_off)
	local ver, ip, udp = lower_headers(tvb)
	if ver == nil or icrc_off < 12 then
		return nil
	end
	if ver == 4 then
		ip = set_ones(ip, 2, 2)		-- TOS
		ip = set_ones(ip, 9, 9)		-- TTL
		ip = set_ones(ip, 11, 12)	-- header checksum
	else
		ip = string.char(bit32.bor(ip:byte(1), 0x0F)) .. ip:sub(2)
		ip = set_ones(ip, 2, 4)		-- traffic class (low half), flow label
		ip = set_ones(ip, 8, 8)		-- hop limit
	end
	udp = set_ones(udp, 7, 8)		-- UDP checksum
	local bth = set_ones(tvb:raw(0, 12), 5, 5)	-- BTH byte 4
	local c = crc_update(0xFFFFFFFF, string.rep("\255", 8))
	c = crc_update(c, ip)
	c = crc_update(c, udp)
	c = crc_update(c, bth)
	if icrc_off > 12 then
		c = crc_update(c, tvb:raw(12, icrc_off - 12))
	end
	return bit32.bnot(c)
end

-- ---------------------------------------------------------------- helpers

local function psn_add(a, b)
	return (a + b) % 0x1000000
end

-- Decoding state of one packet.
local Ctx = {}
Ctx.__index = Ctx

function Ctx.new(tvb, pinfo, root)
	return setmetatable({ tvb = tvb, pinfo = pinfo, root = root, off = 0,
			      cap = tvb:len(), rep = tvb:reported_len(),
			      info = {} }, Ctx)
end

function Ctx:left()
	return self.rep - self.off
end

function Ctx:malformed(why)
	local t = self.tvb
	local item
	if self.off < self.cap then
		item = self.root:add(f.malformed, t(self.off), why)
		self.root:add(f.unknown, t(self.off))
	else
		item = self.root:add(f.malformed, why)
		item:set_generated()
	end
	item:add_proto_expert_info(ef.malformed, "Malformed MRC packet: " .. why)
	self.info[#self.info + 1] = "[malformed: " .. why .. "]"
end

-- A header of `len` bytes starts at self.off: its subtree, or nil when the
-- packet ends first (reported as malformed unless `lenient`).
function Ctx:header(name, len, lenient)
	if self:left() < len then
		if lenient then
			return nil, "short"
		end
		self:malformed(string.format("%s truncated (%d of %d bytes)", name,
					     math.max(self:left(), 0), len))
		return nil
	end
	if self.off + len > self.cap then
		return nil, "capture"	-- cut by the snapshot length, not malformed
	end
	return self.root:add(self.tvb(self.off, len), name)
end

function Ctx:warn(item, text)
	item:add_proto_expert_info(ef.field, text)
end

-- ---------------------------------------------------------------- headers

local function dissect_bth(c)
	local t = c.tvb
	local st = c.root:add(t(0, 12), "BTH")
	local op = t(0, 1):uint()
	local opi = st:add(f.opcode, t(0, 1))
	st:add(f.se, t(1, 1))
	st:add(f.migreq, t(1, 1))
	st:add(f.padcnt, t(1, 1))
	local tver = st:add(f.tver, t(1, 1))
	st:add(f.pkey, t(2, 2))
	st:add(f.resv8a, t(4, 1))
	local qpi = st:add(f.dqpn, t(5, 3))
	st:add(f.ackreq, t(8, 1))
	st:add(f.r, t(8, 1))
	st:add(f.rtx, t(8, 1))
	st:add(f.tsh, t(8, 1))
	local rsv = st:add(f.resv4, t(8, 1))
	st:add(f.psn, t(9, 3))
	local b1, b8 = t(1, 1):uint(), t(8, 1):uint()
	if bit32.band(b1, 0x0F) ~= 0 then
		c:warn(tver, "TVer must be 0")
	end
	if bit32.band(b8, 0x4F) ~= 0 then
		c:warn(rsv, "reserved bits of BTH byte 8 set")
	end
	local b = {
		op = op, padcnt = bit32.rshift(bit32.band(b1, 0x30), 4),
		dqpn = t(5, 3):uint(), psn = t(9, 3):uint(),
		ackreq = bit32.band(b8, 0x80) ~= 0, rtx = bit32.band(b8, 0x20) ~= 0,
		tsh = bit32.band(b8, 0x10) ~= 0, opitem = opi, qpitem = qpi, tree = st,
	}
	c.off = 12
	return b
end

local function dissect_tseth(c, name)
	local t, o = c.tvb, c.off
	local st = c:header(name or "TSETH", 4)
	if not st then return nil end
	st:add(f.ts, t(o, 2))
	st:add(f.ts_tsr, t(o + 2, 2))
	st:add(f.ts_rsvd, t(o + 2, 2))
	local fi = st:add(f.ts_ftype, t(o + 2, 2))
	if bit32.band(t(o + 2, 2):uint(), 0x000F) ~= 1 then
		c:warn(fi, "TSETH format type is 1")
	end
	c.off = o + 4
	return t(o, 2):uint()
end

-- What follows the last header: payload and pad (data packets), then the ICRC.
local function dissect_tail(c, b, is_data, trimmed)
	local t, o, left = c.tvb, c.off, c:left()
	local pad = b.padcnt
	if is_data then
		if trimmed then
			-- Cut by a switch: lengths and ICRC cannot be trusted.
			if left > 0 and o + left <= c.cap then
				c.root:add(f.unknown, t(o, left))
			end
			return
		end
		if left < 4 + pad then
			c:malformed(string.format("%d bytes left for PadCnt %d + ICRC", left, pad))
			return
		end
		local plen = left - 4 - pad
		local pi = c.root:add(f.payload_len, plen)
		pi:set_generated()
		if plen > 0 and o + plen <= c.cap then
			c.root:add(f.payload, t(o, plen))
		end
		o = o + plen
		if pad > 0 and o + pad <= c.cap then
			c.root:add(f.pad, t(o, pad))
		end
		o = o + pad
		c.info[#c.info + 1] = "len=" .. plen
	else
		if left < 4 then
			c:malformed(string.format("ICRC truncated (%d of 4 bytes)", math.max(left, 0)))
			return
		end
		if left > 4 then
			local n = left - 4
			if o + n <= c.cap then
				local ti = c.root:add(f.trailing, t(o, n))
				ti:add_proto_expert_info(ef.trailing)
			end
			o = o + n
		end
	end
	if o + 4 > c.cap then
		return
	end
	local got = t(o, 4):le_uint()
	local ii = c.root:add_le(f.icrc, t(o, 4))
	local st = 0
	if mrc.prefs.check_icrc then
		local want = compute_icrc(t, o)
		if want ~= nil then
			local ci = c.root:add(f.icrc_calc, want)
			ci:set_generated()
			if want == got then
				st = 1
			else
				st = 2
				ii:add_proto_expert_info(ef.icrc_bad,
					string.format("Bad ICRC: 0x%08x, computed 0x%08x", got, want))
				c.info[#c.info + 1] = "[bad ICRC]"
			end
		end
	end
	local si = c.root:add(f.icrc_st, st)
	si:set_generated()
end

local function dissect_write(c, b, trimmed)
	local t = c.tvb
	local o = c.off
	local st = c:header("METH", 4)
	if not st then return end
	st:add(f.rqmsn, t(o, 2))
	st:add(f.msn, t(o + 2, 2))
	c.info[#c.info + 1] = "msn=" .. t(o + 2, 2):uint()
	c.off = o + 4
	if b.tsh then
		local ts = dissect_tseth(c)
		if ts == nil then return end
		c.info[#c.info + 1] = "ts=" .. ts
	end
	o = c.off
	st = c:header("RETH", 16)
	if not st then return end
	st:add(f.va, t(o, 8))
	st:add(f.rkey, t(o + 8, 4))
	st:add(f.dmalen, t(o + 12, 4))
	c.info[#c.info + 1] = string.format("va=0x%s", t(o, 8):uint64():tohex())
	c.off = o + 16
	if b.op == OP.WRITE_LAST_IMM or b.op == OP.WRITE_ONLY_IMM then
		o = c.off
		st = c:header("ImmDt", 4, trimmed)
		if not st then
			if trimmed then dissect_tail(c, b, true, true) end
			return
		end
		st:add(f.imm, t(o, 4))
		c.info[#c.info + 1] = string.format("imm=0x%08x", t(o, 4):uint())
		c.off = o + 4
	end
	dissect_tail(c, b, true, trimmed)
end

local function dissect_aeth(c, b)
	local t, o = c.tvb, c.off
	local st = c:header("AETH", 4)
	if not st then return end
	local syn = t(o, 1):uint()
	local si = st:add(f.syndrome, t(o, 1))
	st:add(f.aeth_msn, t(o + 1, 3))
	if bit32.band(syn, 0x60) == 0 and syn ~= 0x1F then
		c:warn(si, "MRC ACKs carry credit field 0x1F")
	elseif bit32.band(syn, 0x60) == 0x20 then
		c:warn(si, "RNR NAK: MRC has no RNR")
	end
	c.info[#c.info + 1] = string.format("%s msn=%d", syndrome_vs[syn] or
					    string.format("syndrome 0x%02x", syn), t(o + 1, 3):uint())
	c.off = o + 4
	dissect_tail(c, b, false)
end

local function bitmap_psns(base, bm)
	local out = {}
	local hi, lo = bm:higher(), bm:lower()
	for i = 0, 63 do
		local w, k = lo, i
		if i >= 32 then w, k = hi, i - 32 end
		if bit32.band(w, bit32.lshift(1, k)) ~= 0 then
			out[#out + 1] = tostring(psn_add(base, i))
		end
	end
	return table.concat(out, ",")
end

local function dissect_sack(c, b)
	local t, o = c.tvb, c.off
	local st = c:header("SETH", 28)
	if not st then return end
	local fl = st:add(f.s_flags, t(o, 2))
	fl:add(f.s_m, t(o, 2))
	fl:add(f.s_pr, t(o, 2))
	local flags = t(o, 2):uint()
	local pr = bit32.band(flags, 0x0002) ~= 0
	if bit32.band(flags, 0xFF9D) ~= 0 then
		c:warn(fl, "reserved SETH flag bits set")
	end
	local cack = t(o + 13, 3):uint()
	st:add(f.s_ackoff, t(o + 2, 2))
	local ackoff = t(o + 2, 2):int()
	if pr then
		local pi = st:add(f.s_probe, t(o + 2, 2))
		pi:set_generated()
	else
		local ai = st:add(f.s_ackpsn, psn_add(cack, ackoff))
		ai:set_generated()
	end
	st:add(f.s_entropy, t(o + 4, 4))
	st:add(f.s_scid, t(o + 8, 2))
	st:add(f.s_dcid, t(o + 10, 2))
	st:add(f.s_dups, t(o + 12, 1))
	local ci = st:add(f.s_cack, t(o + 13, 3))
	st:add(f.s_cctype, t(o + 16, 1))
	st:add(f.s_ccflags, t(o + 16, 1))
	st:add(f.s_mpr, t(o + 17, 1))
	st:add(f.s_sackoff, t(o + 18, 2))
	local sbase = psn_add(cack, t(o + 18, 2):int())
	local bi = st:add(f.s_base, sbase)
	bi:set_generated()
	st:add(f.s_bitmap, t(o + 20, 8))
	local si = st:add(f.s_sacked, bitmap_psns(sbase, t(o + 20, 8):uint64()))
	si:set_generated()
	if cack ~= b.psn then
		c:warn(ci, "a SACK's BTH PSN equals cack_psn")
	end
	local m = bit32.rshift(bit32.band(flags, 0x0060), 5)
	c.info[#c.info + 1] = string.format("cack=%d base=%d bitmap=0x%s%s%s", cack, sbase,
		t(o + 20, 8):uint64():tohex(), m ~= 0 and (" M=" .. m_vs[m]) or "",
		pr and string.format(" PR probe=0x%04x", t(o + 2, 2):uint()) or "")
	c.off = o + 28
	o = c.off
	st = c:header("CC_STATE", 8)
	if not st then return end
	st:add(f.cc_ts, t(o, 2))
	st:add(f.cc_rsvd, t(o + 2, 2))
	st:add(f.cc_ooo, t(o + 2, 2))
	st:add(f.cc_rc, t(o + 4, 4))
	st:add(f.cc_pen, t(o + 4, 4))
	st:add(f.cc_rcvd, t(o + 4, 4))
	c.off = o + 8
	dissect_tail(c, b, false)
end

local function dissect_nack(c, b)
	local t, o = c.tvb, c.off
	local st = c:header("NETH", 20)
	if not st then return end
	st:add(f.n_rsvd0, t(o, 2))
	st:add(f.n_reason, t(o + 2, 1))
	st:add(f.n_vendor, t(o + 3, 1))
	st:add(f.n_entropy, t(o + 4, 4))
	st:add(f.n_scid, t(o + 8, 2))
	st:add(f.n_dcid, t(o + 10, 2))
	st:add(f.n_rsvd1, t(o + 12, 1))
	local pi = st:add(f.n_psn, t(o + 13, 3))
	st:add(f.n_cctype, t(o + 16, 1))
	st:add(f.n_ccflags, t(o + 16, 1))
	st:add(f.n_rsvd2, t(o + 17, 1))
	st:add(f.n_ts, t(o + 18, 2))
	local npsn = t(o + 13, 3):uint()
	if npsn ~= b.psn then
		c:warn(pi, "a NACK's BTH PSN equals nack_psn")
	end
	local r = t(o + 2, 1):uint()
	c.info[#c.info + 1] = string.format("%s psn=%d", reason_vs[r] or
					    string.format("reason 0x%02x", r), npsn)
	c.off = o + 20
	dissect_tail(c, b, false)
end

local function dissect_probe(c, b)
	local t, o = c.tvb, c.off
	local st = c:header("PETH", 16)
	if not st then return end
	st:add(f.p_rsvd0, t(o, 3))
	st:add(f.p_vendor, t(o + 3, 1))
	local pi = st:add(f.p_probe, t(o + 4, 2))
	st:add(f.p_rsvd1, t(o + 6, 2))
	st:add(f.p_scid, t(o + 8, 2))
	st:add(f.p_dcid, t(o + 10, 2))
	st:add(f.p_ts, t(o + 12, 2))
	st:add(f.p_tsr, t(o + 14, 2))
	st:add(f.p_ftype, t(o + 14, 2))
	local id = t(o + 4, 2):uint()
	if id ~= bit32.band(b.psn, 0xFFFF) then
		c:warn(pi, "probe id equals BTH PSN[15:0]")
	end
	c.info[#c.info + 1] = string.format("probe=0x%04x", id)
	c.off = o + 16
	dissect_tail(c, b, false)
end

local function dissect_erth(c, b)
	local t, o = c.tvb, c.off
	local st = c:header("ERTH", 16)
	if not st then return end
	st:add(f.e_rsvd0, t(o, 2))
	st:add(f.e_oprsvd, t(o + 2, 1))
	local oi = st:add(f.e_op, t(o + 2, 1))
	st:add(f.e_vendor, t(o + 3, 1))
	st:add(f.e_mask, t(o + 4, 4))
	st:add(f.e_rsvd, t(o + 8, 4))
	st:add(f.e_ts, t(o + 12, 2))
	st:add(f.e_tsr, t(o + 14, 2))
	st:add(f.e_ftype, t(o + 14, 2))
	local op = bit32.band(t(o + 2, 1):uint(), 0x03)
	if op > 1 then
		c:warn(oi, "undefined endpoint operation")
	end
	c.info[#c.info + 1] = string.format("%s req=0x%04x", ep_op_vs[op],
					    bit32.band(b.psn, 0xFFFF))
	if op == 0 then
		c.info[#c.info + 1] = string.format("down=0x%08x", t(o + 4, 4):uint())
	end
	c.off = o + 16
	dissect_tail(c, b, false)
end

local function dissect_eeth(c, b)
	local t, o = c.tvb, c.off
	local st = c:header("EETH", 36)
	if not st then return end
	st:add(f.r_rsvd0, t(o, 2))
	st:add(f.r_sv, t(o + 2, 1))
	st:add(f.r_oprsvd, t(o + 2, 1))
	local oi = st:add(f.r_op, t(o + 2, 1))
	st:add(f.r_vendor, t(o + 3, 1))
	st:add(f.r_mask, t(o + 4, 4))
	st:add(f.r_entropy, t(o + 8, 4))
	st:add(f.r_port, t(o + 12, 1))
	st:add(f.r_rsvd1, t(o + 13, 3))
	st:add(f.r_ts, t(o + 16, 2))
	st:add(f.r_tsr, t(o + 18, 2))
	st:add(f.r_ftype, t(o + 18, 2))
	st:add(f.r_svc, t(o + 20, 4))
	st:add(f.r_rsvd2, t(o + 24, 12))
	local op = bit32.band(t(o + 2, 1):uint(), 0x03)
	if op > 1 then
		c:warn(oi, "undefined endpoint operation")
	end
	c.info[#c.info + 1] = string.format("%s rsp=0x%04x ev=0x%08x", ep_op_vs[op],
					    bit32.band(b.psn, 0xFFFF), t(o + 8, 4):uint())
	c.off = o + 36
	dissect_tail(c, b, false)
end

-- ---------------------------------------------------------------- main

local udp_table = DissectorTable.get("udp.port")
local previous = {}	-- port -> dissector it had before we took it
local current_port

local function take_port(port)
	if previous[port] == nil then
		previous[port] = udp_table:get_dissector(port) or false
	end
	udp_table:add(port, mrc)
	current_port = port
end

local function give_back_port(port)
	udp_table:remove(port, mrc)
	if previous[port] then
		udp_table:add(port, previous[port])
	end
end

function mrc.dissector(tvb, pinfo, tree)
	if tvb:reported_len() == 0 then
		return 0
	end
	pinfo.cols.protocol = "MRC"
	local root = tree:add(mrc, tvb())
	local c = Ctx.new(tvb, pinfo, root)
	local d = dscp_of(tvb)
	local cls = dscp_class(d)
	if cls then
		local ci = root:add(f.dscp_class, cls)
		ci:set_generated()
	end

	if tvb:reported_len() < 12 then
		c:malformed(string.format("BTH truncated (%d of 12 bytes)", tvb:reported_len()))
		pinfo.cols.info = "MRC " .. table.concat(c.info, " ")
		return tvb:len()
	end
	if tvb:len() < 12 then
		pinfo.cols.info = "MRC [capture cut in BTH]"
		return tvb:len()
	end

	local b = dissect_bth(c)
	root:append_text(string.format(", %s, QP 0x%06x, PSN %d", opcode_name(b.op), b.dqpn, b.psn))

	if bit32.band(b.op, 0xE0) ~= 0xC0 then
		local ni = root:add(f.not_mrc, true)
		ni:set_generated()
		ni:add_proto_expert_info(ef.not_mrc)
		local what = "opcode"
		if bit32.band(b.op, 0xE0) == 0 then
			what = "RC " .. (rc_names[b.op] or "reserved opcode")
		end
		local info = string.format("not MRC: %s (0x%02x)", what, b.op)
		local prev = previous[current_port]
		if mrc.prefs.handoff and prev then
			prev:call(tvb, pinfo, tree)
		end
		pinfo.cols.protocol = "MRC"
		pinfo.cols.info = info
		return tvb:len()
	end

	local head = string.format("%s QP=0x%06x PSN=%d", op_names[b.op] or
				   string.format("unknown MRC opcode 0x%02x", b.op), b.dqpn, b.psn)
	if b.ackreq then head = head .. " AckReq" end
	if b.rtx then head = head .. " rtx" end

	local endpoint_op = b.op == OP.EP_REQUEST or b.op == OP.EP_RESPONSE
	if b.op == OP.PROBE or endpoint_op then
		local ri = b.tree:add(f.req_id, bit32.band(b.psn, 0xFFFF))
		ri:set_generated()
	end
	if endpoint_op ~= (b.dqpn == 2) then
		c:warn(b.qpitem, "QP 0x2 is for endpoint operations only")
	end

	local trimmed = cls == "TRIMMED" or cls == "TRIMMED_LASTHOP"
	if b.op >= OP.WRITE_FIRST and b.op <= OP.WRITE_ONLY_IMM then
		if trimmed then
			local ti = root:add(f.trimmed, true)
			ti:set_generated()
			ti:add_proto_expert_info(ef.trimmed)
			head = head .. " [trimmed]"
		end
		dissect_write(c, b, trimmed)
	elseif b.op == OP.ACK then
		dissect_aeth(c, b)
	elseif b.op == OP.SACK then
		dissect_sack(c, b)
	elseif b.op == OP.NACK then
		dissect_nack(c, b)
	elseif b.op == OP.PROBE then
		dissect_probe(c, b)
	elseif b.op == OP.EP_REQUEST then
		dissect_erth(c, b)
	elseif b.op == OP.EP_RESPONSE then
		dissect_eeth(c, b)
	else
		b.opitem:add_proto_expert_info(ef.unknown)
		if tvb:len() > 12 then
			root:add(f.unknown, tvb(12))
		end
	end

	pinfo.cols.info = head .. (#c.info > 0 and (" " .. table.concat(c.info, " ")) or "")
	return tvb:len()
end

function mrc.prefs_changed()
	local port = mrc.prefs.udp_port
	if port ~= current_port then
		give_back_port(current_port)
		take_port(port)
	end
end

take_port(DEFAULT_PORT)
