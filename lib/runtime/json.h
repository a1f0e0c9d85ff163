/*
 * Copyright 2026 gr-gpudsp authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// Internal: a small JSON value with a strict parser and a writer, for the
// tuner's cache files and shipped tables (runtime/autotune.cc) and the
// tools that print them. Boost 1.74 (Debian 12) has no Boost.JSON, and
// property_tree turns every number into a string.

#ifndef INCLUDED_GPUDSP_RUNTIME_JSON_H
#define INCLUDED_GPUDSP_RUNTIME_JSON_H

#include <gnuradio/gpudsp/api.h>
#include <cstddef>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

namespace gr {
namespace gpudsp {
namespace runtime {
namespace json {

/*! \brief A malformed document; the message gives the byte offset. */
class GPUDSP_API parse_error : public std::runtime_error
{
public:
    using std::runtime_error::runtime_error;
};

/*! \brief A JSON value. Objects keep their members in order. */
class GPUDSP_API value
{
public:
    enum class kind { null, boolean, number, string, array, object };

    value() = default;
    value(bool b) : d_kind(kind::boolean), d_bool(b) {}
    value(double n) : d_kind(kind::number), d_number(n) {}
    value(int n) : value(double(n)) {}
    value(long n) : value(double(n)) {}
    value(long long n) : value(double(n)) {}
    value(unsigned long n) : value(double(n)) {}
    value(unsigned long long n) : value(double(n)) {}
    value(std::string s) : d_kind(kind::string), d_string(std::move(s)) {}
    value(const char* s) : value(std::string(s)) {}

    static value array() { return value(kind::array); }
    static value object() { return value(kind::object); }

    kind type() const { return d_kind; }
    bool is_null() const { return d_kind == kind::null; }
    bool is_number() const { return d_kind == kind::number; }
    bool is_string() const { return d_kind == kind::string; }
    bool is_array() const { return d_kind == kind::array; }
    bool is_object() const { return d_kind == kind::object; }

    /*! The value as that type; std::runtime_error naming \p what when it is
     *  another type. */
    bool as_bool(const std::string& what) const;
    double as_number(const std::string& what) const;
    const std::string& as_string(const std::string& what) const;
    const std::vector<value>& as_array(const std::string& what) const;

    /*! Object member \p key, or null when absent (or not an object). */
    const value& operator[](const std::string& key) const;
    /*! Sets (or adds) object member \p key. */
    value& set(const std::string& key, value v);
    /*! Appends to an array. */
    value& push(value v);
    const std::vector<std::pair<std::string, value>>& members() const { return d_object; }

    bool operator==(const value& o) const;
    bool operator!=(const value& o) const { return !(*this == o); }

private:
    explicit value(kind k) : d_kind(k) {}
    kind d_kind = kind::null;
    bool d_bool = false;
    double d_number = 0;
    std::string d_string;
    std::vector<value> d_array;
    std::vector<std::pair<std::string, value>> d_object;
};

/*! \brief Parses a whole document (RFC 8259; nothing but whitespace may
 *  follow the value). Throws parse_error. */
GPUDSP_API value parse(const std::string& text);

/*! \brief Writes \p v; with \p indent >= 0, one member or element a line.
 *  Numbers are written to round-trip exactly (integers without a point). */
GPUDSP_API std::string dump(const value& v, int indent = -1);

/*! \brief \p s as a JSON string literal, quotes included. */
GPUDSP_API std::string quote(const std::string& s);

} // namespace json
} // namespace runtime
} // namespace gpudsp
} // namespace gr

#endif /* INCLUDED_GPUDSP_RUNTIME_JSON_H */
