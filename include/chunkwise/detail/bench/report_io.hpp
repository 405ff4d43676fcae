#pragma once
// Internal: a scaling report as files: scaling.json (everything, samples included, so separate
// launches merge), scaling.csv (one row per point) and scaling_ranks.csv (one row per rank of each
// point), and the JSON read back (standard library only): the definitions of scaling_report's
// json(), csv(), ranks_csv(), write() and from_json(). Included by <chunkwise/bench/report.hpp>
// after the class it defines them for.
#include <chunkwise/detail/bench/json.hpp>
#include <chunkwise/error.hpp>

#include <cmath>
#include <limits>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <system_error>
#include <utility>

namespace chunkwise::bench {

namespace detail {

/// A number for CSV ("nan" for NaN).
inline std::string csv_number(double x) {
    if (std::isnan(x)) return "nan";
    char buf[40];
    std::snprintf(buf, sizeof buf, "%.9g", x);
    return buf;
}

/// A string for CSV, quoted where it holds a comma or a quote.
inline std::string csv_text(const std::string& s) {
    if (s.find_first_of(",\"\n") == std::string::npos) return s;
    std::string q = "\"";
    for (char c : s) q += c == '"' ? std::string("\"\"") : std::string(1, c);
    return q + "\"";
}

}  // namespace detail

namespace detail {

/// One point of the report as JSON (scaling.json's "points").
inline void json_point(std::ostringstream& o, const scaling_point& p) {
    using chunkwise::detail::json_number;
    using chunkwise::detail::json_quote;
    const auto null_or = [](double x) { return std::isnan(x) ? std::string("null") : json_number(x); };
    const auto opt_number = [](double x) { return json_number(x); };
    o << "    {\"workers\": " << p.workers << ", \"ranks\": " << p.ranks << ", \"threads\": " << p.threads
      << ", \"hosts\": " << p.hosts << ", \"repeats\": " << p.samples.size()
      << ",\n     \"seconds\": {\"mean\": " << json_number(p.mean) << ", \"std\": " << json_number(p.std)
      << ", \"min\": " << json_number(p.min) << "}, \"interval\": "
      << (std::isnan(p.interval_low) ? std::string("null")
                                     : "[" + json_number(p.interval_low) + ", " + json_number(p.interval_high) + "]")
      << ", \"stop\": " << json_quote(p.stop) << ", \"read_bandwidth\": " << null_or(p.read_bandwidth)
      << ", \"core_hours\": " << null_or(p.core_hours) << ",\n     \"samples\": [";
    for (std::size_t k = 0; k < p.samples.size(); ++k) o << (k ? ", " : "") << json_number(p.samples[k]);
    o << "],\n     \"phases\": {\"read\": " << json_number(p.phases.read)
      << ", \"compute\": " << json_number(p.phases.compute) << ", \"wait\": " << json_number(p.phases.wait)
      << ", \"combine\": " << json_number(p.phases.combine) << ", \"other\": " << json_number(p.phases.other)
      << ", \"lock\": " << json_number(p.phases.lock) << "},\n     \"per_rank\": [";
    for (std::size_t k = 0; k < p.per_rank.size(); ++k) {
        const rank_times& r = p.per_rank[k];
        o << (k ? ", " : "") << "{\"rank\": " << r.rank << ", \"host\": " << json_quote(r.host)
          << ", \"threads\": " << r.threads << ", \"busy\": " << json_number(r.busy)
          << ", \"read\": " << json_number(r.read) << ", \"compute\": " << json_number(r.compute)
          << ", \"wait\": " << json_number(r.wait) << ", \"combine\": " << json_number(r.combine)
          << ", \"lock\": " << json_number(r.lock) << ", \"read_bytes\": " << json_number(r.read_bytes) << "}";
    }
    o << "],\n     \"per_host\": [";
    for (std::size_t k = 0; k < p.per_host.size(); ++k) {
        const host_times& h = p.per_host[k];
        o << (k ? ", " : "") << "{\"host\": " << json_quote(h.host) << ", \"ranks\": " << h.ranks
          << ", \"threads\": " << h.threads << ", \"busy\": " << json_number(h.busy)
          << ", \"read_bytes\": " << json_number(h.read_bytes) << ", \"read\": " << json_number(h.read)
          << ", \"slowest_rank\": " << h.slowest_rank << "}";
    }
    o << "],\n     \"slowest\": {\"rank\": " << p.slowest_rank << ", \"host\": " << json_quote(p.slowest_host)
      << "}, \"imbalance\": " << json_number(p.imbalance)
      << ",\n     \"lock_held_share\": " << json_number(p.lock_held_share)
      << ", \"cpu_share\": " << opt_number(p.cpu_share) << ", \"cpu_use\": " << opt_number(p.cpu_use)
      << ", \"contended\": " << (p.contended ? "true" : "false") << ", \"load\": " << opt_number(p.load)
      << ", \"steal\": " << opt_number(p.steal) << ", \"lock_bound\": {\"16\": " << json_number(p.lock_bound(16))
      << ", \"64\": " << json_number(p.lock_bound(64)) << ", \"1024\": " << json_number(p.lock_bound(1024))
      << "},\n     \"speedup\": " << opt_number(p.speedup) << ", \"efficiency\": " << opt_number(p.efficiency)
      << ", \"karp_flatt\": " << opt_number(p.karp_flatt) << "}";
}

/// A fitted prediction as JSON (scaling.json's "prediction").
inline void json_prediction(std::ostringstream& o, const prediction_report& q) {
    using chunkwise::detail::json_number;
    using chunkwise::detail::json_quote;
    const auto null_or = [](double x) { return std::isnan(x) ? std::string("null") : json_number(x); };
    const auto text_or_null = [](const std::string& t) { return t.empty() ? std::string("null") : json_quote(t); };
    o << "{\"points\": [";
    for (std::size_t i = 0; i < q.points.size(); ++i) {
        o << (i ? ", " : "") << "{\"workers\": " << json_number(q.points[i].workers)
          << ", \"seconds\": " << json_number(q.points[i].seconds)
          << ", \"speedup\": " << json_number(q.points[i].speedup)
          << ", \"efficiency\": " << json_number(q.points[i].efficiency)
          << ", \"core_hours\": " << null_or(q.points[i].core_hours) << "}";
    }
    o << "],\n    \"chosen\": " << json_quote(q.chosen) << ", \"held_out_error\": " << null_or(q.held_out_error)
      << ", \"confident\": " << (q.confident ? "true" : "false") << ", \"reason\": " << text_or_null(q.reason)
      << ",\n    \"recommended_workers\": " << null_or(q.recommended) << ", \"range\": [" << json_number(q.range_low)
      << ", " << json_number(q.range_high) << "], \"next_measurement\": " << null_or(q.next_measurement)
      << ", \"next_note\": " << text_or_null(q.next_note);
    if (q.cores_per_node > 0) {
        o << ", \"cores_per_node\": " << q.cores_per_node
          << ", \"recommended_nodes\": " << null_or(q.recommended_nodes);
    }
    o << ",\n    \"knee\": " << json_number(q.knee) << ", \"break_even\": " << json_number(q.break_even)
      << ", \"bandwidth\": " << text_or_null(q.bandwidth_note) << ", \"note\": " << json_quote(q.note)
      << ",\n    \"fits\": {\"model\": {\"t_serial\": " << json_number(q.t_serial)
      << ", \"work\": " << json_number(q.work) << ", \"bytes\": " << json_number(q.bytes)
      << ", \"read_one\": " << json_number(q.read_one) << ", \"read_cap\": " << json_number(q.read_cap)
      << ", \"worker_bandwidth\": " << json_number(q.worker_bandwidth)
      << ", \"shared_bandwidth\": " << json_number(q.shared_bandwidth) << ", \"comm\": " << json_number(q.comm)
      << ", \"growth\": " << json_quote(q.growth) << ", \"error\": " << json_number(q.model_error)
      << ", \"held_out_error\": " << null_or(q.model_held_out)
      << "},\n             \"amdahl\": {\"serial_fraction\": " << json_number(q.amdahl.serial_fraction)
      << ", \"t1\": " << json_number(q.amdahl.t1) << ", \"error\": " << json_number(q.amdahl.error)
      << ", \"held_out_error\": " << null_or(q.amdahl_held_out) << ", \"at_bound\": " << text_or_null(q.amdahl.at_bound)
      << "},\n             \"usl\": {\"sigma\": " << json_number(q.usl.sigma)
      << ", \"kappa\": " << json_number(q.usl.kappa) << ", \"t1\": " << json_number(q.usl.t1)
      << ", \"error\": " << json_number(q.usl.error) << ", \"held_out_error\": " << null_or(q.usl_held_out)
      << ", \"at_bound\": " << text_or_null(q.usl.at_bound) << "}}}";
}

}  // namespace detail

inline std::string scaling_report::json() const {
    using chunkwise::detail::json_number;
    using chunkwise::detail::json_quote;
    std::ostringstream o;
    o << "{\n  \"workload\": " << json_quote(workload) << ",\n  \"input\": " << json_quote(input)
      << ",\n  \"fingerprint\": {\"program\": " << json_quote(fingerprint.program)
      << ", \"workload\": " << json_quote(fingerprint.workload) << ", \"args\": " << json_quote(fingerprint.args)
      << ", \"input\": {\"path\": " << json_quote(fingerprint.input_path)
      << ", \"bytes\": " << json_number(fingerprint.input_bytes)
      << ", \"layout\": " << json_quote(fingerprint.input_layout) << "}}"
      << ",\n  \"hosts_given\": " << hosts_given << ",\n  \"mode\": " << json_quote(mode)
      << ",\n  \"machine\": {\"host\": " << json_quote(machine.host) << ", \"cpu\": " << json_quote(machine.cpu)
      << ", \"l3\": " << json_quote(machine.l3) << ", \"cores\": " << machine.cores
      << ", \"load\": " << (std::isnan(machine.load) ? std::string("null") : json_number(machine.load))
      << "},\n  \"chunkwise_version\": " << json_quote(chunkwise_version)
      << ",\n  \"baseline_workers\": " << baseline_workers
      << ",\n  \"baseline_note\": " << (baseline_note.empty() ? "null" : json_quote(baseline_note))
      << ",\n  \"io\": {\"bytes_read\": " << json_number(bytes_read)
      << ", \"shared_bandwidth\": " << (shared_bandwidth > 0 ? json_number(shared_bandwidth) : "null")
      << ", \"probe\": " << json_quote(probe) << "},\n  \"points\": [";
    for (std::size_t i = 0; i < points.size(); ++i) {
        const scaling_point& p = points[i];
        o << (i ? ",\n" : "\n");
        detail::json_point(o, p);
    }
    o << "\n  ],\n  \"amdahl\": {\"serial_fraction\": "
      << (amdahl_fitted ? json_number(amdahl.serial_fraction) : "null")
      << ", \"max_speedup\": " << (amdahl_fitted ? json_number(amdahl.max_speedup) : "null")
      << ", \"t1\": " << (amdahl_fitted ? json_number(amdahl.t1) : "null")
      << ", \"error\": " << (amdahl_fitted ? json_number(amdahl.error) : "null")
      << ", \"note\": " << (amdahl_note.empty() ? "null" : json_quote(amdahl_note)) << "},\n  \"prediction\": ";
    const prediction_report& q = prediction;
    if (!q.fitted) {
        o << (q.note.empty() ? std::string("null") : "{\"note\": " + json_quote(q.note) + "}");
    } else {
        detail::json_prediction(o, q);
    }
    o << "\n}\n";
    return o.str();
}

inline std::string scaling_report::csv() const {
    using detail::csv_number;
    std::ostringstream o;
    o << "workers,ranks,threads,repeats,mean_s,std_s,min_s,read_s,compute_s,wait_s,combine_s,other_s,lock_s,speedup,"
         "efficiency,karp_flatt,baseline_workers,slowest_rank,slowest_host,imbalance,lock_held_share,lock_bound_16,"
         "lock_bound_64,lock_bound_1024,interval_low_s,interval_high_s,stop,read_bandwidth,core_hours,cpu_share,cpu_"
         "use,"
         "contended,"
         "load,steal\n";
    for (const scaling_point& p : points) {
        o << p.workers << ',' << p.ranks << ',' << p.threads << ',' << p.samples.size() << ',' << csv_number(p.mean)
          << ',' << csv_number(p.std) << ',' << csv_number(p.min) << ',' << csv_number(p.phases.read) << ','
          << csv_number(p.phases.compute) << ',' << csv_number(p.phases.wait) << ',' << csv_number(p.phases.combine)
          << ',' << csv_number(p.phases.other) << ',' << csv_number(p.phases.lock) << ',' << csv_number(p.speedup)
          << ',' << csv_number(p.efficiency) << ',' << csv_number(p.karp_flatt) << ',' << baseline_workers << ','
          << p.slowest_rank << ',' << detail::csv_text(p.slowest_host) << ',' << csv_number(p.imbalance) << ','
          << csv_number(p.lock_held_share) << ',' << csv_number(p.lock_bound(16)) << ',' << csv_number(p.lock_bound(64))
          << ',' << csv_number(p.lock_bound(1024)) << ',' << csv_number(p.interval_low) << ','
          << csv_number(p.interval_high) << ',' << p.stop << ',' << csv_number(p.read_bandwidth) << ','
          << csv_number(p.core_hours) << ',' << csv_number(p.cpu_share) << ',' << csv_number(p.cpu_use) << ','
          << (p.contended ? "true" : "false") << ',' << csv_number(p.load) << ',' << csv_number(p.steal) << '\n';
    }
    return o.str();
}

inline std::string scaling_report::ranks_csv() const {
    using detail::csv_number;
    std::ostringstream o;
    o << "workers,ranks,threads,rank,host,rank_threads,busy_s,read_s,compute_s,wait_s,combine_s,lock_s,slowest,read_"
         "bytes\n";
    for (const scaling_point& p : points) {
        for (const rank_times& r : p.per_rank) {
            o << p.workers << ',' << p.ranks << ',' << p.threads << ',' << r.rank << ',' << detail::csv_text(r.host)
              << ',' << r.threads << ',' << csv_number(r.busy) << ',' << csv_number(r.read) << ','
              << csv_number(r.compute) << ',' << csv_number(r.wait) << ',' << csv_number(r.combine) << ','
              << csv_number(r.lock) << ',' << (r.rank == p.slowest_rank ? 1 : 0) << ',' << csv_number(r.read_bytes)
              << '\n';
        }
    }
    return o.str();
}

inline std::string scaling_report::hosts_csv() const {
    using detail::csv_number;
    std::ostringstream o;
    o << "workers,ranks,threads,host,host_ranks,host_threads,busy_s,read_s,read_bytes,slowest_rank\n";
    for (const scaling_point& p : points) {
        for (const host_times& h : p.per_host) {
            o << p.workers << ',' << p.ranks << ',' << p.threads << ',' << detail::csv_text(h.host) << ',' << h.ranks
              << ',' << h.threads << ',' << csv_number(h.busy) << ',' << csv_number(h.read) << ','
              << csv_number(h.read_bytes) << ',' << h.slowest_rank << '\n';
        }
    }
    return o.str();
}

inline void scaling_report::write(const std::filesystem::path& dir) const {
    std::error_code ec;
    std::filesystem::create_directories(dir, ec);
    if (ec || !std::filesystem::is_directory(dir)) {
        throw error("[chunkwise.bench] cannot create the output folder " + dir.string() +
                    (ec ? ": " + ec.message() : std::string()));
    }
    for (const auto& [name, text] :
         {std::pair{"scaling.json", json()}, std::pair{"scaling.csv", csv()},
          std::pair{"scaling_ranks.csv", ranks_csv()}, std::pair{"scaling_hosts.csv", hosts_csv()}}) {
        const auto path = dir / name;
        std::ofstream out(path, std::ios::trunc);
        if (!(out << text) || !out.flush()) throw error("[chunkwise.bench] cannot write " + path.string());
    }
}

namespace detail {

/// The most workers a point of a report may claim: no run has made more.
inline constexpr double most_workers = 1 << 20;

/// A count of a point of a report (workers, ranks, threads, repeats): a whole number from 1 to
/// most_workers, `fallback` where absent. \throws error naming the point and the field otherwise
inline std::size_t point_count(const chunkwise::detail::json_value& p, const char* field, double fallback,
                               std::size_t workers) {
    const double d = std::isnan(p[field].number()) ? fallback : p[field].number();
    if (!(d >= 1) || d > most_workers || d != std::floor(d)) {
        char shown[32];
        std::snprintf(shown, sizeof shown, "%g", d);
        throw error("[chunkwise.bench] not a scaling report: " +
                    (workers > 0 ? "the point of " + std::to_string(workers) + " workers" : std::string("a point")) +
                    " has " + field + " " + shown + " (no run makes fewer than 1 or more than 2^20)");
    }
    return static_cast<std::size_t>(d);
}

/// One point of a scaling.json, checked: counts no run can have made (fewer than 1, more than
/// 2^20, workers other than ranks x threads, repeats other than its samples) and times that are
/// negative or not finite are refused.
inline scaling_point point_from_json(const chunkwise::detail::json_value& p) {
    auto number_or = [](const chunkwise::detail::json_value& x, double fallback) {
        const double d = x.number();
        return std::isnan(d) ? fallback : d;
    };
    scaling_point s;
    s.workers = point_count(p, "workers", std::numeric_limits<double>::quiet_NaN(), 0);
    s.ranks = point_count(p, "ranks", 1, s.workers);
    s.threads = point_count(p, "threads", 1, s.workers);
    if (s.ranks * s.threads != s.workers)
        throw error("[chunkwise.bench] not a scaling report: the point of " + std::to_string(s.workers) +
                    " workers ran " + std::to_string(s.ranks) + " ranks of " + std::to_string(s.threads) + " threads");
    if (const auto* samples = p["samples"].as_array()) {
        for (const auto& t : *samples) s.samples.push_back(t.number());
    } else {
        s.samples.push_back(p["seconds"]["mean"].number());
    }
    if (!std::isnan(p["repeats"].number()) && point_count(p, "repeats", 1, s.workers) != s.samples.size())
        throw error("[chunkwise.bench] not a scaling report: the point of " + std::to_string(s.workers) +
                    " workers says " + std::to_string(point_count(p, "repeats", 1, s.workers)) + " repeats and holds " +
                    std::to_string(s.samples.size()) + " samples");
    const auto& ph = p["phases"];
    s.phases = {number_or(ph["read"], 0),    number_or(ph["compute"], 0), number_or(ph["wait"], 0),
                number_or(ph["combine"], 0), number_or(ph["other"], 0),   number_or(ph["lock"], 0)};
    if (const auto* ranks = p["per_rank"].as_array()) {
        for (const auto& x : *ranks) {
            rank_times t;
            t.rank = static_cast<int>(number_or(x["rank"], 0));
            t.host = x["host"].string();
            t.threads = static_cast<std::size_t>(number_or(x["threads"], 1));
            t.busy = number_or(x["busy"], 0);
            t.read = number_or(x["read"], 0);
            t.compute = number_or(x["compute"], 0);
            t.wait = number_or(x["wait"], 0);
            t.combine = number_or(x["combine"], 0);
            t.lock = number_or(x["lock"], 0);
            t.read_bytes = number_or(x["read_bytes"], 0);
            s.per_rank.push_back(std::move(t));
        }
    }
    s.lock_held_share = number_or(p["lock_held_share"], 0);
    s.cpu_share = number_or(p["cpu_share"], not_measured);
    s.cpu_use = number_or(p["cpu_use"], not_measured);
    s.load = number_or(p["load"], not_measured);
    s.steal = number_or(p["steal"], not_measured);
    if (!p["stop"].string().empty()) s.stop = p["stop"].string();
    if (s.samples.empty()) throw error("[chunkwise.bench] not a scaling report: a point without samples");
    // A time is never negative, NaN or infinite: such a report was edited or damaged.
    const auto check_time = [&](double t, const std::string& what) {
        if (!(t >= 0) || !std::isfinite(t)) {
            char shown[32];
            std::snprintf(shown, sizeof shown, "%g", t);
            throw error("[chunkwise.bench] not a scaling report: the point of " + std::to_string(s.workers) +
                        " workers has " + what + " " + shown + " (times are finite and never negative)");
        }
    };
    for (double t : s.samples) check_time(t, "a sample of");
    const std::pair<double, const char*> phases[] = {{s.phases.read, "read"},   {s.phases.compute, "compute"},
                                                     {s.phases.wait, "wait"},   {s.phases.combine, "combine"},
                                                     {s.phases.other, "other"}, {s.phases.lock, "lock"}};
    for (const auto& [t, name] : phases) check_time(t, std::string("a ") + name + " time of");
    return s;
}

}  // namespace detail

inline scaling_report scaling_report::from_json(const std::string& text) {
    const chunkwise::detail::json_value v = chunkwise::detail::json_parser(text).parse();
    const auto* pts = v["points"].as_array();
    if (v.as_object() == nullptr || pts == nullptr)
        throw error("[chunkwise.bench] not a scaling report: no \"points\"");
    auto number_or = [](const chunkwise::detail::json_value& x, double fallback) {
        const double d = x.number();
        return std::isnan(d) ? fallback : d;
    };
    scaling_report r;
    r.workload = v["workload"].string();
    r.input = v["input"].string();
    r.mode = v["mode"].string();
    r.machine.host = v["machine"]["host"].string();
    r.machine.cpu = v["machine"]["cpu"].string();
    r.machine.l3 = v["machine"]["l3"].string();
    r.machine.cores = static_cast<std::size_t>(number_or(v["machine"]["cores"], 0));
    r.machine.load = number_or(v["machine"]["load"], not_measured);
    r.chunkwise_version = v["chunkwise_version"].string();
    r.bytes_read = number_or(v["io"]["bytes_read"], 0);
    r.shared_bandwidth = number_or(v["io"]["shared_bandwidth"], 0);
    r.probe = v["io"]["probe"].string();
    const auto& fp = v["fingerprint"];
    r.fingerprint.program = fp["program"].string();
    r.fingerprint.workload = fp["workload"].string();
    r.fingerprint.args = fp["args"].string();
    r.fingerprint.input_path = fp["input"]["path"].string();
    r.fingerprint.input_bytes = number_or(fp["input"]["bytes"], 0);
    r.fingerprint.input_layout = fp["input"]["layout"].string();
    r.hosts_given = static_cast<std::size_t>(number_or(v["hosts_given"], 0));
    for (const chunkwise::detail::json_value& p : *pts) r.points.push_back(detail::point_from_json(p));
    r.finish();
    return r;
}

}  // namespace chunkwise::bench
