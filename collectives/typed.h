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

// A value of any DataType's C++ type as a double (exact for all but 64-bit integers beyond 2^53),
// and a double rounded to the type (integers convert with static_cast: the value must fit).
template <typename T>
CCLAB_HD double toDouble(T value) {
  if constexpr (Float16<T>) return toFloat(value);
  else return static_cast<double>(value);
}

template <typename T>
CCLAB_HD T fromDouble(double value) {
  if constexpr (Float16<T>) return fromFloat<T>(static_cast<float>(value));
  else return static_cast<T>(value);
}

}  // namespace cclab
