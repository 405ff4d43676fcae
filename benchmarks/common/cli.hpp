#pragma once
// Command lines of chunkwise's benchmark programs: "--name value" options and "--flag"s, every
// one checked, with messages that name the option and the bad value.
#include <cstddef>
#include <cstdlib>
#include <map>
#include <set>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

namespace bench_cli {

class args {
public:
    /// Parses argv[first..]: "--name value" for `options`, "--name" alone for `flags`.
    /// \throws std::invalid_argument naming an unknown option or a missing value
    args(int argc, char** argv, int first, std::set<std::string> options, std::set<std::string> flags)
            : options_(std::move(options)), flags_(std::move(flags)) {
        for (int i = first; i < argc; ++i) {
            const std::string a = argv[i];
            if (a == "--") {
                for (++i; i < argc; ++i) rest_.push_back(argv[i]);
                break;
            }
            if (a.rfind("--", 0) != 0) {
                positional_.push_back(a);
                continue;
            }
            const std::string name = a.substr(2);
            if (flags_.count(name)) {
                set_flags_.insert(name);
            } else if (options_.count(name)) {
                if (i + 1 >= argc) throw std::invalid_argument("--" + name + " needs a value");
                values_[name] = argv[++i];
            } else {
                throw std::invalid_argument("unknown option --" + name);
            }
        }
    }

    [[nodiscard]] bool has(const std::string& name) const { return values_.count(name) != 0; }
    [[nodiscard]] bool flag(const std::string& name) const { return set_flags_.count(name) != 0; }
    [[nodiscard]] const std::vector<std::string>& positional() const noexcept { return positional_; }

    [[nodiscard]] std::string text(const std::string& name, const std::string& fallback) const {
        const auto it = values_.find(name);
        return it == values_.end() ? fallback : it->second;
    }
    /// A required option. \throws std::invalid_argument when it is missing
    [[nodiscard]] std::string required(const std::string& name) const {
        const auto it = values_.find(name);
        if (it == values_.end()) throw std::invalid_argument("--" + name + " is required");
        return it->second;
    }
    [[nodiscard]] std::size_t count(const std::string& name, std::size_t fallback, std::size_t at_least = 0) const {
        const auto it = values_.find(name);
        if (it == values_.end()) return fallback;
        return parse_count(name, it->second, at_least);
    }
    [[nodiscard]] double number(const std::string& name, double fallback) const {
        const auto it = values_.find(name);
        if (it == values_.end()) return fallback;
        char* end = nullptr;
        const double v = std::strtod(it->second.c_str(), &end);
        if (end == it->second.c_str() || *end != '\0') {
            throw std::invalid_argument("--" + name + ": '" + it->second + "' is not a number");
        }
        return v;
    }
    /// A comma-separated list of whole numbers, each at least `at_least`.
    [[nodiscard]] std::vector<std::size_t> counts(const std::string& name, std::vector<std::size_t> fallback,
                                                  std::size_t at_least = 1) const {
        const auto it = values_.find(name);
        if (it == values_.end()) return fallback;
        std::vector<std::size_t> out;
        std::stringstream ss(it->second);
        for (std::string item; std::getline(ss, item, ',');) out.push_back(parse_count(name, item, at_least));
        if (out.empty()) throw std::invalid_argument("--" + name + ": an empty list");
        return out;
    }

private:
    static std::size_t parse_count(const std::string& name, const std::string& text, std::size_t at_least) {
        std::size_t v = 0;
        bool ok = !text.empty() && text.size() <= 19;
        for (char c : text) ok = ok && c >= '0' && c <= '9';
        if (ok) v = std::strtoull(text.c_str(), nullptr, 10);
        if (!ok || v < at_least) {
            throw std::invalid_argument("--" + name + ": '" + text + "' is not a whole number of at least " +
                                        std::to_string(at_least));
        }
        return v;
    }

    std::set<std::string> options_, flags_, set_flags_;
    std::map<std::string, std::string> values_;
    std::vector<std::string> positional_, rest_;
};

}  // namespace bench_cli
