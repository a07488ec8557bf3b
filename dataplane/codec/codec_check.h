// Before a run: can the profile's codec encode every packet the traffic
// sources will make, in the packet buffers the engine allocates? The engine
// sizes its buffers with packet_data_room (codec.h) and segments messages as
// below; control/ asks at load time so that `check` refuses what a run would
// stop at ("could not be encoded") with the limit that was crossed.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "dataplane/codec/codec.h"
#include "dataplane/codec/packet_format.h"
#include "dataplane/core/packet_meta.h"

namespace fabemu {

struct CodecProblem {
  // What has to change: the longest packet, its header, the packets a
  // message is cut into (segments), a packet that does not encode
  // (message_bytes), or the number of endpoints the header addresses.
  enum class Limit : uint8_t { none, max_units, header_units, segments, message_bytes, endpoints };
  Limit limit = Limit::none;
  uint32_t message_bytes = 0;  // the message that does not encode (message_bytes)
  std::string message;         // what is wrong and what to do
};

// Checks the messages of `message_bytes` (requests) and `reply_bytes`
// (responses; 0: none) between endpoints 0..endpoints-1, cut into packets of
// at most format.max_payload_bytes() as the engine cuts them: the first and
// the last segment of each, as a request and a response, are encoded into a
// scratch buffer of packet_data_room(kind, format.max_units).
CodecProblem codec_check_messages(CodecKind kind, const PacketFormat& format, uint32_t endpoints,
                                  const std::vector<uint32_t>& message_bytes, uint32_t reply_bytes);

}  // namespace fabemu
