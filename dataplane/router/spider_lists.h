// The receive buffers of the Spider router (Galles, "Spider: A High-Speed
// Network Interconnect", IEEE Micro 1997, "Crossbar arbitration"): one per
// (input port, VC), holding whole messages, each buffer keeping "a separate
// linked list of messages for each of the five possible output ports", so
// that "a blocked message targeting one output port will not prevent a
// subsequent message in that same buffer from exiting on a different output
// port".
//
// Storage only, for the model (spider.h): per channel c (InputQueuedBuffers'
// numbering, (local router * ports + port) * nv + vc) a pool of qcap slots
// (the most messages the buffer can hold, router_sizing.h) linked twice: in
// arrival order (what faults and link-level retry remove from the back, what
// the credit audit sums) and in one list per output port (what arbitration
// takes from the front). A message is routed in arrival order: the first
// unrouted one is the channel's "head" the engine routes
// (RouterModel::head_routed), and routing moves it into its output's list.
// Indices are 16-bit (qcap <= kMaxFifoEntries); no allocation after init.
#pragma once
#include <cstdint>
#include <vector>

#include "dataplane/router/input_queued.h"

namespace fabemu {

class SpiderLists {
 public:
  static constexpr uint16_t kNil = 0xFFFF;
  struct Slot {
    QEntry e;
    uint16_t prev, next;  // arrival order in its channel
    uint16_t list_next;   // its output's list (routed)
    uint8_t age;          // its header's age as it arrived (spider_header.h)
    uint8_t cut;          // its link died mid-message: waits for the tail time-out
  };
  static_assert(sizeof(Slot) == 40, "a slot is its entry and four words");

  void init(size_t channels, uint32_t ports, uint32_t qcap) {
    ports_ = ports;
    qcap_ = qcap;
    ch_.assign(channels, Channel{});
    slots_.assign(channels * qcap, Slot{});
    lists_.assign(channels * ports, List{});
    for (size_t c = 0; c < channels; c++) {
      for (uint32_t s = 0; s + 1 < qcap; s++)
        slots_[c * qcap + s].next = static_cast<uint16_t>(s + 1);
      slots_[c * qcap + qcap - 1].next = kNil;
      ch_[c].free = 0;
    }
  }
  static size_t bytes(size_t channels, uint32_t ports, uint32_t qcap) {
    return channels * (sizeof(Channel) + qcap * sizeof(Slot) + ports * sizeof(List));
  }

  uint32_t len(uint32_t c) const { return ch_[c].len; }
  uint32_t occupancy(uint32_t c) const { return ch_[c].occ; }
  uint32_t peak(uint32_t c) const { return ch_[c].peak; }
  uint64_t units_in(uint32_t c) const { return ch_[c].units_in; }
  uint64_t units_out(uint32_t c) const { return ch_[c].units_out; }
  Slot& slot(uint32_t c, uint16_t s) { return slots_[size_t(c) * qcap_ + s]; }
  const Slot& slot(uint32_t c, uint16_t s) const { return slots_[size_t(c) * qcap_ + s]; }
  uint16_t first(uint32_t c) const { return ch_[c].first; }
  uint16_t last(uint32_t c) const { return ch_[c].last; }
  uint16_t unrouted(uint32_t c) const { return ch_[c].unrouted; }
  // The message the engine routes next, or (all routed) the oldest: with
  // one message, that one (link-level retry's sole entry).
  QEntry& head(uint32_t c) {
    const uint16_t s = ch_[c].unrouted != kNil ? ch_[c].unrouted : ch_[c].first;
    return slot(c, s == kNil ? 0 : s).e;
  }
  // The i-th message in arrival order (the credit audit: slow, off the hot path).
  const QEntry& at(uint32_t c, uint32_t i) const {
    uint16_t s = ch_[c].first;
    while (i--) s = slot(c, s).next;
    return slot(c, s).e;
  }
  uint16_t list_head(uint32_t c, uint32_t port) const {
    return lists_[size_t(c) * ports_ + port].head;
  }

  // Message e (header age `age`) enters channel c at the back; returns its
  // slot. The caller has checked the room (credits, qcap).
  uint16_t add(uint32_t c, const QEntry& e, uint8_t age) {
    Channel& ch = ch_[c];
    const uint16_t s = ch.free;
    Slot& sl = slot(c, s);
    ch.free = sl.next;
    sl.e = e;
    sl.e.routed = 0;
    sl.age = age;
    sl.cut = 0;
    sl.prev = ch.last;
    sl.next = kNil;
    sl.list_next = kNil;
    if (ch.last == kNil)
      ch.first = s;
    else
      slot(c, ch.last).next = s;
    ch.last = s;
    if (ch.unrouted == kNil) ch.unrouted = s;
    ch.len++;
    ch.occ += e.units;
    ch.units_in += e.units;
    if (ch.occ > ch.peak) ch.peak = ch.occ;
    return s;
  }
  // The first unrouted message (routed: out_port set) joins its output's
  // list; returns true when the list was empty (a new requester).
  bool file_routed(uint32_t c) {
    Channel& ch = ch_[c];
    const uint16_t s = ch.unrouted;
    Slot& sl = slot(c, s);
    ch.unrouted = sl.next;
    List& l = lists_[size_t(c) * ports_ + sl.e.out_port];
    sl.list_next = kNil;
    const bool was_empty = l.head == kNil;
    if (was_empty)
      l.head = s;
    else
      slot(c, l.tail).list_next = s;
    l.tail = s;
    return was_empty;
  }
  // Slot s leaves channel c (from anywhere in both orders); returns true
  // when it was routed and its output's list is now empty (the requester
  // goes). Its units leave the occupancy; the caller counts them out.
  bool remove(uint32_t c, uint16_t s) {
    Channel& ch = ch_[c];
    Slot& sl = slot(c, s);
    bool emptied = false;
    if (sl.e.routed) {
      List& l = lists_[size_t(c) * ports_ + sl.e.out_port];
      uint16_t prev = kNil;
      for (uint16_t x = l.head; x != s; x = slot(c, x).list_next) prev = x;
      if (prev == kNil)
        l.head = sl.list_next;
      else
        slot(c, prev).list_next = sl.list_next;
      if (l.tail == s) l.tail = prev;
      emptied = l.head == kNil;
    } else if (ch.unrouted == s) {
      ch.unrouted = sl.next;
    }
    if (sl.prev == kNil)
      ch.first = sl.next;
    else
      slot(c, sl.prev).next = sl.next;
    if (sl.next == kNil)
      ch.last = sl.prev;
    else
      slot(c, sl.next).prev = sl.prev;
    ch.len--;
    ch.occ -= sl.e.units;
    sl.next = ch.free;
    ch.free = s;
    return emptied;
  }
  // Units counted out (sent, or lost as if sent: their credits go back) or
  // never counted (a damaged copy excised, or one owed no credits).
  void count_out(uint32_t c, uint32_t units) { ch_[c].units_out += units; }
  void uncount_in(uint32_t c, uint32_t units) { ch_[c].units_in -= units; }
  void pass_through(uint32_t c, uint32_t units) {
    ch_[c].units_in += units;
    ch_[c].units_out += units;
  }

 private:
  struct Channel {
    uint64_t units_in = 0, units_out = 0;
    uint32_t occ = 0, peak = 0;
    uint16_t first = kNil, last = kNil;  // arrival order
    uint16_t unrouted = kNil;            // the first not yet routed
    uint16_t free = kNil;                // free slots
    uint16_t len = 0;
  };
  struct List {
    uint16_t head = kNil, tail = kNil;
  };
  uint32_t ports_ = 0, qcap_ = 1;
  std::vector<Channel> ch_;  // [c]
  std::vector<Slot> slots_;  // [c * qcap + s]
  std::vector<List> lists_;  // [c * ports + output port]
};

}  // namespace fabemu
