// Endpoints, continued: phases and their barriers (phases.h; the BSUs and
// registers in dataplane/barrier/). Included from endpoints.h only.
#pragma once

namespace fabemu {

// Processor e has generated its phase, or heard the eureka that ends it:
// it joins the barrier once its last request has left.
template <class H>
void Endpoints::end_phase(H& h, uint32_t e) {
  PhaseState& ph = phase_[e];
  ph.left = 0;
  if (ep_[e].srcq[0].len == 0)
    h.schedule(event_at(std::max(h.now(), ep_[e].inj_free), H::kind(EndpointEvent::join), e));
  else
    ph.join_pending = true;  // (try_inject schedules the join)
}

// Processor e starts phase ph.number at t: it generates, or, with nothing
// to send, joins the barrier at once.
template <class H>
void Endpoints::start_phase(H& h, uint32_t e, ps_t t) {
  PhaseState& ph = phase_[e];
  const uint32_t p = p_.fabric->processor(e);
  ph.left = p_.generates[p] && p_.traffic->load > 0 ? p_.traffic->phase_messages : 0;
  ph.has_work = ph.left > 0;
  ph.heard_eureka = false;
  ph.join_pending = false;
  if (ph.left == 0) {
    h.schedule(event_at(t, H::kind(EndpointEvent::join), e));
  } else if (ph.stale_generate) {
    ph.stale_generate = false;  // the generation a eureka cut short starts this phase
  } else {
    h.schedule(event_at(t, H::kind(EndpointEvent::generate), e));
  }
}

// OP_BAR on the phase's BSU; in a eureka phase, the processor that finished
// its own messages first signals the eureka with it (OP_EUR_B).
template <class H>
void Endpoints::on_join(H& h, uint32_t e) {
  PhaseState& ph = phase_[e];
  const uint32_t bsu = ph.number % p_.barrier_units;
  BsuUnit& u = ph.bsu[bsu];
  const ps_t now = h.now();
  if (p_.traffic->phases == PhaseSync::eureka && ph.has_work && !ph.heard_eureka) {
    if (!u.op_eur_b()) return;
    h.barrier_signal(e, bsu, BarrierSignal::eureka, now);
  } else if (!u.op_bar()) {
    return;
  }
  ph.joined = now;
  h.barrier_signal(e, bsu, BarrierSignal::barrier, now);
}

// A notification reaches processor e's BSU at ev.t.
template <class H>
void Endpoints::on_barrier(H& h, const Event& ev) {
  const uint32_t e = ev.a;
  PhaseState& ph = phase_[e];
  BsuUnit& u = ph.bsu[ev.vc];
  const ps_t t = ev.t;
  const bool measured = t >= h.measure_start() && t < h.measure_end();
  BarrierStats& bs = h.stats().barrier;
  if (static_cast<BarrierSignal>(ev.amount) == BarrierSignal::eureka_done) {
    if (!u.eureka_done()) return;  // its own eureka's, or one it is past
    if (measured) bs.eureka_ps.add(t - ev.unit_ps);
    ph.heard_eureka = true;
    if (ph.left > 0) {  // still generating: the phase ends here
      ph.stale_generate = true;  // (its next generation is already on the wheel)
      end_phase(h, e);
    }
    return;
  }
  if (!u.barrier_done()) return;
  if (measured) {
    bs.latency_ps.add(t - ev.unit_ps);
    bs.wait_ps.add(t - ph.joined);
  }
  ph.number++;
  if (t < h.gen_end() && generating_) start_phase(h, e, t);  // none once the sources stop
}

}  // namespace fabemu
