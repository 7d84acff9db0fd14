#pragma once

// The C++ type behind each DataType, for code that is written once as a template.

#include <cstdint>

#include "collectives/float8.h"
#include "collectives/half.h"
#include "collectives/vocabulary.h"

namespace cclab {

// The floats narrower than float: stored as bits, computed in float (one rounding per operation).
template <typename T>
concept NarrowFloat = Float16<T> || Float8<T>;

template <NarrowFloat T>
CCLAB_HD T narrowFromFloat(float value) {
  if constexpr (Float16<T>) return fromFloat<T>(value);
  else return toFloat8<T>(value);
}

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
    case DataType::Float8E4M3: return f.template operator()<Float8E4M3>();
    case DataType::Float8E5M2: return f.template operator()<Float8E5M2>();
  }
}

// A value of any DataType's C++ type as a double (exact for all but 64-bit integers beyond 2^53),
// and a double rounded to the type (integers convert with static_cast: the value must fit).
template <typename T>
CCLAB_HD double toDouble(T value) {
  if constexpr (NarrowFloat<T>) return toFloat(value);
  else return static_cast<double>(value);
}

template <typename T>
CCLAB_HD T fromDouble(double value) {
  if constexpr (NarrowFloat<T>) return narrowFromFloat<T>(static_cast<float>(value));
  else return static_cast<T>(value);
}

}  // namespace cclab
