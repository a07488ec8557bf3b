// Turns the spec's capture section into what the engine and the writer
// thread need: which links and ports are tapped (one pcapng interface each,
// named as pcap-tools/FORMAT.md says), the filter, and the record size.
#pragma once
#include <string>

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

// cfg: the run's engine configuration (codec, packet format, ports). Throws
// nothing; false with *err naming the tap and what exists instead.
bool plan_capture(const Spec& spec, const Fabric& fabric, const EngineConfig& cfg,
                  CapturePlan* plan, std::string* err);

}  // namespace fabemu
