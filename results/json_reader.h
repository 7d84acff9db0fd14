#pragma once

// Reading JSON documents with errors a user can act on. Every cclab reader of JSON (results files,
// cluster and GPU descriptions, model cards, DeepSpeed configs, plan files) parses through
// parseJson/readJsonFile and reads fields through a JsonReader, so every document gets the same
// guarantees: a nesting limit checked before parsing, no exception but InputError whatever the
// input, every missing, mistyped or out-of-range field reported as
// "<file>: <where>.<field>: <problem>", and invalid UTF-8 replaced, never thrown, when a value is
// echoed into a message.

#include <cmath>
#include <filesystem>
#include <limits>
#include <optional>
#include <string>
#include <string_view>
#include <type_traits>

#include <fmt/format.h>

#include "collectives/errors.h"
#include "results/results.h"

namespace cclab::results {

// Documents nested deeper than this are refused before parsing (no recursion into them).
inline constexpr int kMaxJsonDepth = 128;

// Parses `text` as JSON (comments allowed). InputError "<source>: not valid JSON (line L, column
// C)", or "<source>: nested deeper than 128 levels".
Json parseJson(std::string_view text, const std::string& source);
// The text of a file: InputError naming the file for one that is missing, a directory, unreadable
// or empty (`what` names it in messages: "results file", "cluster").
std::string readTextFile(const std::filesystem::path& path, std::string_view what);
// readTextFile + parseJson.
Json readJsonFile(const std::filesystem::path& path, std::string_view what);
// JSON text with invalid UTF-8 replaced by U+FFFD: never throws (a value read from a text file
// can hold any bytes).
std::string dumpJson(const Json& value, int indent = -1);
// A value as an error message quotes it: JSON, invalid UTF-8 replaced, at most 60 characters.
std::string quoted(const Json& value);

class JsonReader {
 public:
  JsonReader(const Json& object, std::string source, std::string where = "")
      : object_(object), source_(std::move(source)), where_(std::move(where)) {}

  [[noreturn]] void fail(const std::string& field, const std::string& problem) const {
    throw InputError(fmt::format("{}: {}{}{}: {}", source_, where_, where_.empty() ? "" : ".", field, problem));
  }
  // Whether the field is there and not null.
  bool has(const std::string& field) const {
    return object_.is_object() && object_.contains(field) && !object_.at(field).is_null();
  }
  const Json& required(const std::string& field) const {
    if (!object_.is_object()) throw InputError(fmt::format("{}: {}: expected an object, found {}", source_, where_.empty() ? "the document" : where_, quoted(object_)));
    if (!object_.contains(field)) fail(field, "missing");
    return object_.at(field);
  }
  // The field converted to T: a string, a boolean, a whole number within T's range, or a finite
  // number. Missing, null or anything else: InputError.
  template <typename T>
  T get(const std::string& field) const {
    return convert<T>(field, required(field));
  }
  template <typename T>
  T get(const std::string& field, T fallback) const {
    return has(field) ? convert<T>(field, object_.at(field)) : fallback;
  }
  template <typename T>
  std::optional<T> optional(const std::string& field) const {
    if (!has(field)) return std::nullopt;
    return convert<T>(field, object_.at(field));
  }
  // A number that must be > 0 (or >= 0 with allowZero).
  double positive(const std::string& field, bool allowZero = false) const {
    const double value = get<double>(field);
    if (value < 0 || (!allowZero && value == 0)) {
      fail(field, fmt::format("must be {} (got {})", allowZero ? "zero or more" : "positive", value));
    }
    return value;
  }
  double positive(const std::string& field, double fallback, bool allowZero = false) const {
    return has(field) ? positive(field, allowZero) : fallback;
  }
  // A whole number in [min, max].
  template <typename T>
  T within(const std::string& field, T min, T max) const {
    const T value = get<T>(field);
    if (value < min || value > max) fail(field, fmt::format("must be from {} to {} (got {})", min, max, value));
    return value;
  }
  template <typename T>
  T within(const std::string& field, T min, T max, T fallback) const {
    return has(field) ? within<T>(field, min, max) : fallback;
  }
  JsonReader child(const std::string& field) const {
    const Json& value = required(field);
    if (!value.is_object()) fail(field, fmt::format("expected an object, found {}", quoted(value)));
    return JsonReader(value, source_, path(field));
  }
  // The field as an array (InputError otherwise); the reader of element i is element(field, i).
  const Json& array(const std::string& field) const {
    const Json& value = required(field);
    if (!value.is_array()) fail(field, fmt::format("expected an array, found {}", quoted(value)));
    return value;
  }
  JsonReader element(const std::string& field, std::size_t index) const {
    return JsonReader(array(field).at(index), source_, fmt::format("{}[{}]", path(field), index));
  }
  const std::string& source() const { return source_; }
  std::string path(const std::string& field) const { return where_.empty() ? field : where_ + "." + field; }
  const Json& json() const { return object_; }

 private:
  template <typename T>
  T convert(const std::string& field, const Json& value) const {
    if constexpr (std::is_same_v<T, std::string>) {
      if (!value.is_string()) fail(field, fmt::format("expected a string, found {}", quoted(value)));
      return value.get<std::string>();
    } else if constexpr (std::is_same_v<T, bool>) {
      if (!value.is_boolean()) fail(field, fmt::format("expected a boolean, found {}", quoted(value)));
      return value.get<bool>();
    } else if constexpr (std::is_integral_v<T>) {
      if (!value.is_number_integer()) fail(field, fmt::format("expected a whole number, found {}", quoted(value)));
      // Read at full width, then check the range: no silent narrowing or wrapping.
      if (value.is_number_unsigned()) {
        const std::uint64_t v = value.get<std::uint64_t>();
        if (v > static_cast<std::uint64_t>(std::numeric_limits<T>::max())) fail(field, fmt::format("{} is too large (at most {})", v, std::numeric_limits<T>::max()));
        return static_cast<T>(v);
      }
      const std::int64_t v = value.get<std::int64_t>();
      if constexpr (std::is_unsigned_v<T>) {
        if (v < 0) fail(field, fmt::format("must be zero or more (got {})", v));
        if (static_cast<std::uint64_t>(v) > static_cast<std::uint64_t>(std::numeric_limits<T>::max())) fail(field, fmt::format("{} is too large (at most {})", v, std::numeric_limits<T>::max()));
      } else {
        if (v < static_cast<std::int64_t>(std::numeric_limits<T>::min()) || v > static_cast<std::int64_t>(std::numeric_limits<T>::max())) {
          fail(field, fmt::format("{} is out of range ({} to {})", v, std::numeric_limits<T>::min(), std::numeric_limits<T>::max()));
        }
      }
      return static_cast<T>(v);
    } else {
      if (!value.is_number()) fail(field, fmt::format("expected a number, found {}", quoted(value)));
      const T v = value.get<T>();
      if (!std::isfinite(v)) fail(field, fmt::format("expected a finite number, found {}", quoted(value)));
      return v;
    }
  }

  const Json& object_;
  std::string source_;
  std::string where_;
};

}  // namespace cclab::results
