#pragma once
// Internal: a small JSON reader and writer for chunkwise's own files (the scaling reports the
// harness writes and merges). Objects, arrays, strings (with escapes), numbers, true, false and
// null; errors name the offset.
#include <chunkwise/error.hpp>

#include <cmath>
#include <cstddef>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <memory>
#include <string>
#include <variant>
#include <vector>

namespace chunkwise::detail {

struct json_value {
    using object = std::map<std::string, json_value>;
    using array = std::vector<json_value>;
    std::variant<std::nullptr_t, bool, double, std::string, std::shared_ptr<array>, std::shared_ptr<object>> v{nullptr};

    [[nodiscard]] bool is_null() const noexcept { return std::holds_alternative<std::nullptr_t>(v); }
    [[nodiscard]] const object* as_object() const noexcept {
        const auto* p = std::get_if<std::shared_ptr<object>>(&v);
        return p != nullptr ? p->get() : nullptr;
    }
    [[nodiscard]] const array* as_array() const noexcept {
        const auto* p = std::get_if<std::shared_ptr<array>>(&v);
        return p != nullptr ? p->get() : nullptr;
    }
    /// The member `key` of an object, or null.
    [[nodiscard]] const json_value& operator[](const std::string& key) const {
        static const json_value none;
        const object* o = as_object();
        if (o == nullptr) return none;
        const auto it = o->find(key);
        return it == o->end() ? none : it->second;
    }
    /// The number (NaN for null, as the writer writes NaN and infinities).
    [[nodiscard]] double number() const {
        if (const double* d = std::get_if<double>(&v)) return *d;
        return std::nan("");
    }
    [[nodiscard]] std::string string() const {
        if (const std::string* s = std::get_if<std::string>(&v)) return *s;
        return {};
    }
};

class json_parser {
public:
    explicit json_parser(const std::string& text) : t_(text) {}

    json_value parse() {
        json_value v = value();
        space();
        if (at_ != t_.size()) fail("text after the value");
        return v;
    }

private:
    [[noreturn]] void fail(const std::string& what) const {
        throw error("[chunkwise.json] " + what + " at offset " + std::to_string(at_));
    }
    void space() {
        while (at_ < t_.size() && (t_[at_] == ' ' || t_[at_] == '\n' || t_[at_] == '\r' || t_[at_] == '\t')) ++at_;
    }
    bool take(char c) {
        space();
        if (at_ < t_.size() && t_[at_] == c) {
            ++at_;
            return true;
        }
        return false;
    }
    json_value value() {
        space();
        if (at_ >= t_.size()) fail("unexpected end");
        const char c = t_[at_];
        json_value out;
        if (c == '{') {
            ++at_;
            auto obj = std::make_shared<json_value::object>();
            if (!take('}')) {
                do {
                    space();
                    std::string key = text();
                    if (!take(':')) fail("':' expected");
                    (*obj)[key] = value();
                } while (take(','));
                if (!take('}')) fail("'}' expected");
            }
            out.v = obj;
        } else if (c == '[') {
            ++at_;
            auto arr = std::make_shared<json_value::array>();
            if (!take(']')) {
                do {
                    arr->push_back(value());
                } while (take(','));
                if (!take(']')) fail("']' expected");
            }
            out.v = arr;
        } else if (c == '"') {
            out.v = text();
        } else if (t_.compare(at_, 4, "true") == 0) {
            at_ += 4;
            out.v = true;
        } else if (t_.compare(at_, 5, "false") == 0) {
            at_ += 5;
            out.v = false;
        } else if (t_.compare(at_, 4, "null") == 0) {
            at_ += 4;
        } else {
            const char* begin = t_.c_str() + at_;
            char* end = nullptr;
            const double d = std::strtod(begin, &end);
            if (end == begin) fail("a value expected");
            at_ += static_cast<std::size_t>(end - begin);
            out.v = d;
        }
        return out;
    }
    std::string text() {
        if (at_ >= t_.size() || t_[at_] != '"') fail("'\"' expected");
        ++at_;
        std::string s;
        while (at_ < t_.size() && t_[at_] != '"') {
            char c = t_[at_++];
            if (c == '\\') {
                if (at_ >= t_.size()) fail("unfinished escape");
                const char e = t_[at_++];
                switch (e) {
                    case 'n':
                        c = '\n';
                        break;
                    case 't':
                        c = '\t';
                        break;
                    case 'r':
                        c = '\r';
                        break;
                    case 'b':
                        c = '\b';
                        break;
                    case 'f':
                        c = '\f';
                        break;
                    case 'u': {
                        if (at_ + 4 > t_.size()) fail("unfinished \\u escape");
                        const unsigned code =
                            static_cast<unsigned>(std::strtoul(t_.substr(at_, 4).c_str(), nullptr, 16));
                        at_ += 4;
                        if (code < 0x80) {
                            c = static_cast<char>(code);
                        } else {  // kept as UTF-8
                            if (code < 0x800) {
                                s += static_cast<char>(0xc0 | (code >> 6));
                            } else {
                                s += static_cast<char>(0xe0 | (code >> 12));
                                s += static_cast<char>(0x80 | ((code >> 6) & 0x3f));
                            }
                            c = static_cast<char>(0x80 | (code & 0x3f));
                        }
                        break;
                    }
                    default:
                        c = e;
                        break;  // \" \\ \/
                }
            }
            s += c;
        }
        if (at_ >= t_.size()) fail("unterminated string");
        ++at_;
        return s;
    }

    const std::string& t_;
    std::size_t at_ = 0;
};

/// `s` as a JSON string literal.
inline std::string json_quote(const std::string& s) {
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
            case '\t':
                out += "\\t";
                break;
            case '\r':
                out += "\\r";
                break;
            default:
                if (static_cast<unsigned char>(c) < 0x20) {
                    char buf[8];
                    std::snprintf(buf, sizeof buf, "\\u%04x", static_cast<unsigned>(static_cast<unsigned char>(c)));
                    out += buf;
                } else {
                    out += c;
                }
        }
    }
    return out + "\"";
}

/// `x` as a JSON number; null where it is NaN or infinite (JSON has neither).
inline std::string json_number(double x) {
    if (!std::isfinite(x)) return "null";
    char buf[40];
    std::snprintf(buf, sizeof buf, "%.17g", x);
    return buf;
}

}  // namespace chunkwise::detail
