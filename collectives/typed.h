#pragma once

// The C++ type behind each DataType, for code that is written once as a template.

#include <cstdint>

#include "collectives/half.h"
#include "collectives/vocabulary.h"

namespace cclab {

// Calls f.template operator()<T>() with the C++ type of a DataType.
template <typename F>
void withType(DataType dtype, F&& f) {
  switch (dtype) {
    case DataType::Int8: return f.template operator()<std::int8_t>();
    case DataType::Uint8: return f.template operator()<std::uint8_t>();
    case DataType::Int32: return f.template operator()<std::int32_t>();
    case DataType::Uint32: return f.template operator()<std::uint32_t>();
    case DataType::Int64: return f.template operator()<std::int64_t>();
    case DataType::Uint64: return f.template operator()<std::uint64_t>();
    case DataType::Half: return f.template operator()<Half>();
    case DataType::BFloat16: return f.template operator()<BFloat16>();
    case DataType::Float: return f.template operator()<float>();
    case DataType::Double: return f.template operator()<double>();
  }
}

}  // namespace cclab
