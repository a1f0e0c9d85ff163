/*
 * Copyright 2026 gr-gpudsp authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "json.h"
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>

namespace gr {
namespace gpudsp {
namespace runtime {
namespace json {

namespace {

const char* kind_name(value::kind k)
{
    switch (k) {
    case value::kind::null:
        return "null";
    case value::kind::boolean:
        return "a boolean";
    case value::kind::number:
        return "a number";
    case value::kind::string:
        return "a string";
    case value::kind::array:
        return "an array";
    default:
        return "an object";
    }
}

[[noreturn]] void wrong(const std::string& what, const char* want, value::kind got)
{
    throw std::runtime_error(what + " must be " + want + ", not " + kind_name(got));
}

class parser
{
public:
    explicit parser(const std::string& text) : d_s(text) {}

    value document()
    {
        value v = parse_value(0);
        skip_space();
        if (d_i != d_s.size())
            fail("text after the value");
        return v;
    }

private:
    [[noreturn]] void fail(const std::string& why) const
    {
        throw parse_error("JSON: " + why + " at byte " + std::to_string(d_i));
    }
    void skip_space()
    {
        while (d_i < d_s.size() && (d_s[d_i] == ' ' || d_s[d_i] == '\t' ||
                                    d_s[d_i] == '\n' || d_s[d_i] == '\r'))
            ++d_i;
    }
    bool take(const char* word)
    {
        const std::size_t n = std::strlen(word);
        if (d_s.compare(d_i, n, word) != 0)
            return false;
        d_i += n;
        return true;
    }

    value parse_value(int depth)
    {
        if (depth > 64)
            fail("nesting deeper than 64");
        skip_space();
        if (d_i >= d_s.size())
            fail("unexpected end");
        const char c = d_s[d_i];
        if (c == '{')
            return parse_object(depth);
        if (c == '[')
            return parse_array(depth);
        if (c == '"')
            return value(parse_string());
        if (take("true"))
            return value(true);
        if (take("false"))
            return value(false);
        if (take("null"))
            return value();
        if (c == '-' || (c >= '0' && c <= '9'))
            return value(parse_number());
        fail(std::string("unexpected '") + c + "'");
    }

    value parse_object(int depth)
    {
        value v = value::object();
        ++d_i; // '{'
        skip_space();
        if (d_i < d_s.size() && d_s[d_i] == '}') {
            ++d_i;
            return v;
        }
        for (;;) {
            skip_space();
            if (d_i >= d_s.size() || d_s[d_i] != '"')
                fail("expected a member name");
            std::string key = parse_string();
            skip_space();
            if (d_i >= d_s.size() || d_s[d_i] != ':')
                fail("expected ':'");
            ++d_i;
            v.set(key, parse_value(depth + 1));
            skip_space();
            if (d_i < d_s.size() && d_s[d_i] == ',') {
                ++d_i;
                continue;
            }
            if (d_i < d_s.size() && d_s[d_i] == '}') {
                ++d_i;
                return v;
            }
            fail("expected ',' or '}'");
        }
    }

    value parse_array(int depth)
    {
        value v = value::array();
        ++d_i; // '['
        skip_space();
        if (d_i < d_s.size() && d_s[d_i] == ']') {
            ++d_i;
            return v;
        }
        for (;;) {
            v.push(parse_value(depth + 1));
            skip_space();
            if (d_i < d_s.size() && d_s[d_i] == ',') {
                ++d_i;
                continue;
            }
            if (d_i < d_s.size() && d_s[d_i] == ']') {
                ++d_i;
                return v;
            }
            fail("expected ',' or ']'");
        }
    }

    double parse_number()
    {
        // The grammar checked here; the value converted by strtod.
        const std::size_t begin = d_i;
        auto digits = [&] {
            const std::size_t from = d_i;
            while (d_i < d_s.size() && d_s[d_i] >= '0' && d_s[d_i] <= '9')
                ++d_i;
            return d_i - from;
        };
        if (d_s[d_i] == '-')
            ++d_i;
        if (d_i < d_s.size() && d_s[d_i] == '0')
            ++d_i;
        else if (digits() == 0)
            fail("malformed number");
        if (d_i < d_s.size() && d_s[d_i] == '.') {
            ++d_i;
            if (digits() == 0)
                fail("malformed number");
        }
        if (d_i < d_s.size() && (d_s[d_i] == 'e' || d_s[d_i] == 'E')) {
            ++d_i;
            if (d_i < d_s.size() && (d_s[d_i] == '+' || d_s[d_i] == '-'))
                ++d_i;
            if (digits() == 0)
                fail("malformed number");
        }
        const std::string text = d_s.substr(begin, d_i - begin);
        const double v = std::strtod(text.c_str(), nullptr);
        if (!std::isfinite(v))
            fail("number out of range");
        return v;
    }

    unsigned hex4()
    {
        if (d_i + 4 > d_s.size())
            fail("truncated \\u escape");
        unsigned v = 0;
        for (int k = 0; k < 4; ++k) {
            const char c = d_s[d_i++];
            v <<= 4;
            if (c >= '0' && c <= '9')
                v |= unsigned(c - '0');
            else if (c >= 'a' && c <= 'f')
                v |= unsigned(c - 'a' + 10);
            else if (c >= 'A' && c <= 'F')
                v |= unsigned(c - 'A' + 10);
            else
                fail("bad \\u escape");
        }
        return v;
    }

    static void utf8(std::string& out, unsigned cp)
    {
        if (cp < 0x80) {
            out += char(cp);
        } else if (cp < 0x800) {
            out += char(0xC0 | (cp >> 6));
            out += char(0x80 | (cp & 0x3F));
        } else if (cp < 0x10000) {
            out += char(0xE0 | (cp >> 12));
            out += char(0x80 | ((cp >> 6) & 0x3F));
            out += char(0x80 | (cp & 0x3F));
        } else {
            out += char(0xF0 | (cp >> 18));
            out += char(0x80 | ((cp >> 12) & 0x3F));
            out += char(0x80 | ((cp >> 6) & 0x3F));
            out += char(0x80 | (cp & 0x3F));
        }
    }

    std::string parse_string()
    {
        ++d_i; // '"'
        std::string out;
        for (;;) {
            if (d_i >= d_s.size())
                fail("unterminated string");
            const char c = d_s[d_i++];
            if (c == '"')
                return out;
            if (static_cast<unsigned char>(c) < 0x20)
                fail("control character in a string");
            if (c != '\\') {
                out += c;
                continue;
            }
            if (d_i >= d_s.size())
                fail("unterminated string");
            const char e = d_s[d_i++];
            switch (e) {
            case '"':
            case '\\':
            case '/':
                out += e;
                break;
            case 'b':
                out += '\b';
                break;
            case 'f':
                out += '\f';
                break;
            case 'n':
                out += '\n';
                break;
            case 'r':
                out += '\r';
                break;
            case 't':
                out += '\t';
                break;
            case 'u': {
                unsigned cp = hex4();
                if (cp >= 0xD800 && cp < 0xDC00) { // a surrogate pair
                    if (!take("\\u"))
                        fail("lone surrogate");
                    const unsigned lo = hex4();
                    if (lo < 0xDC00 || lo >= 0xE000)
                        fail("bad surrogate pair");
                    cp = 0x10000 + ((cp - 0xD800) << 10) + (lo - 0xDC00);
                } else if (cp >= 0xDC00 && cp < 0xE000) {
                    fail("lone surrogate");
                }
                utf8(out, cp);
                break;
            }
            default:
                fail("bad escape");
            }
        }
    }

    const std::string& d_s;
    std::size_t d_i = 0;
};

void write(std::string& out, const value& v, int indent, int level)
{
    auto newline = [&](int l) {
        if (indent < 0)
            return;
        out += '\n';
        out.append(std::size_t(indent * l), ' ');
    };
    switch (v.type()) {
    case value::kind::null:
        out += "null";
        break;
    case value::kind::boolean:
        out += v.as_bool("") ? "true" : "false";
        break;
    case value::kind::number: {
        const double n = v.as_number("");
        char buf[40];
        if (n == std::floor(n) && std::fabs(n) < 9.007199254740992e15)
            std::snprintf(buf, sizeof buf, "%.0f", n);
        else
            std::snprintf(buf, sizeof buf, "%.17g", n);
        out += buf;
        break;
    }
    case value::kind::string:
        out += quote(v.as_string(""));
        break;
    case value::kind::array: {
        const auto& a = v.as_array("");
        out += '[';
        for (std::size_t i = 0; i < a.size(); ++i) {
            if (i)
                out += ',';
            newline(level + 1);
            write(out, a[i], indent, level + 1);
        }
        if (!a.empty())
            newline(level);
        out += ']';
        break;
    }
    case value::kind::object: {
        const auto& m = v.members();
        out += '{';
        for (std::size_t i = 0; i < m.size(); ++i) {
            if (i)
                out += ',';
            newline(level + 1);
            out += quote(m[i].first);
            out += indent < 0 ? ":" : ": ";
            write(out, m[i].second, indent, level + 1);
        }
        if (!m.empty())
            newline(level);
        out += '}';
        break;
    }
    }
}

} // namespace

bool value::as_bool(const std::string& what) const
{
    if (d_kind != kind::boolean)
        wrong(what, "a boolean", d_kind);
    return d_bool;
}
double value::as_number(const std::string& what) const
{
    if (d_kind != kind::number)
        wrong(what, "a number", d_kind);
    return d_number;
}
const std::string& value::as_string(const std::string& what) const
{
    if (d_kind != kind::string)
        wrong(what, "a string", d_kind);
    return d_string;
}
const std::vector<value>& value::as_array(const std::string& what) const
{
    if (d_kind != kind::array)
        wrong(what, "an array", d_kind);
    return d_array;
}

const value& value::operator[](const std::string& key) const
{
    static const value none;
    for (const auto& m : d_object)
        if (m.first == key)
            return m.second;
    return none;
}

value& value::set(const std::string& key, value v)
{
    if (d_kind != kind::object)
        wrong("a JSON value given members", "an object", d_kind);
    for (auto& m : d_object)
        if (m.first == key) {
            m.second = std::move(v);
            return m.second;
        }
    d_object.emplace_back(key, std::move(v));
    return d_object.back().second;
}

value& value::push(value v)
{
    if (d_kind != kind::array)
        wrong("a JSON value given elements", "an array", d_kind);
    d_array.push_back(std::move(v));
    return d_array.back();
}

bool value::operator==(const value& o) const
{
    if (d_kind != o.d_kind)
        return false;
    switch (d_kind) {
    case kind::null:
        return true;
    case kind::boolean:
        return d_bool == o.d_bool;
    case kind::number:
        return d_number == o.d_number;
    case kind::string:
        return d_string == o.d_string;
    case kind::array:
        return d_array == o.d_array;
    default:
        return d_object == o.d_object;
    }
}

value parse(const std::string& text) { return parser(text).document(); }

std::string dump(const value& v, int indent)
{
    std::string out;
    write(out, v, indent, 0);
    return out;
}

std::string quote(const std::string& s)
{
    std::string out = "\"";
    for (const char c : s) {
        switch (c) {
        case '"':
            out += "\\\"";
            break;
        case '\\':
            out += "\\\\";
            break;
        case '\n':
            out += "\\n";
            break;
        case '\r':
            out += "\\r";
            break;
        case '\t':
            out += "\\t";
            break;
        default:
            if (static_cast<unsigned char>(c) < 0x20) {
                char buf[8];
                std::snprintf(buf, sizeof buf, "\\u%04x", unsigned(c));
                out += buf;
            } else {
                out += c;
            }
        }
    }
    return out + "\"";
}

} // namespace json
} // namespace runtime
} // namespace gpudsp
} // namespace gr
