// Turns the spec's capture section into what the engine and the writer
// thread need: which links and ports are tapped (one pcapng interface each,
// named as pcap-tools/FORMAT.md says), the filter, and the record size.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "control/spec/spec.h"
#include "dataplane/core/fabric.h"
#include "dataplane/engine/engine_base.h"
#include "pcap-tools/capture_writer.h"

namespace fabemu {

struct CapturePlan {
  CaptureWriterConfig writer;
  CaptureTaps taps;          // queues left empty: the writer makes them
  uint32_t data_bytes = 0;   // bytes of packet or frame a record holds
};

// What the capture section selects in a fabric: links (number_links order)
// and port bindings, and the filters.
struct CaptureSelection {
  std::vector<uint8_t> link_on;
  std::vector<uint8_t> binding_on;
  CaptureTaps filters;  // vc_mask, src, dst and classes
};

// Empty, or the capture field a run cannot follow and why.
struct CaptureProblem {
  std::string field;
  std::string message;
  explicit operator bool() const { return !message.empty(); }
};

// The one check of the capture section against the fabric (every slice) and
// the names of the run's port bindings (port_binding_name): what `fabemu
// check` refuses and what a run captures. A tap that names nothing, a VC or
// endpoint filter the fabric lacks, or taps that select nothing is a problem.
CaptureProblem select_capture(const Spec::Capture& capture, const Fabric& fabric,
                              const std::vector<std::string>& port_names, CaptureSelection* sel);

// cfg: the run's engine configuration (codec, packet format, ports). Throws
// nothing; false with *err naming the field, the tap and what exists instead.
bool plan_capture(const Spec& spec, const Fabric& fabric, const EngineConfig& cfg,
                  CapturePlan* plan, std::string* err);

}  // namespace fabemu
