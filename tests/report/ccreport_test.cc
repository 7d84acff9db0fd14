// ccreport end to end: exit codes 0/1/2, one line on stderr for bad input, and every output
// format read back (JSON parsed, JUnit XML checked well-formed, the Markdown table, the HTML page
// with and without a ccplan to draw its charts).

#include <sys/wait.h>

#include <fstream>
#include <sstream>

#include <fmt/format.h>
#include <gtest/gtest.h>

#ifdef CCLAB_HAVE_LIBXML2
#include <libxml/parser.h>
#include <libxml/xpath.h>
#endif

#include "tests/report/fixtures.h"

namespace cclab::report {
namespace {

using namespace testing;
using results::Json;
constexpr std::uint64_t kMiB = 1 << 20;

std::string slurp(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

struct Result {
  int exit = -1;
  std::string out, err;
};

// Runs ccreport with `args` (shell words), `env` before it (VAR=value ...).
Result ccreport(const fs::path& dir, const std::string& args, const std::string& env = "") {
  const std::string command =
      fmt::format("cd '{}' && env {} '{}' {} > stdout.txt 2> stderr.txt", dir.string(), env, CCREPORT, args);
  const int status = std::system(command.c_str());
  return {WIFEXITED(status) ? WEXITSTATUS(status) : -1, slurp(dir / "stdout.txt"), slurp(dir / "stderr.txt")};
}

// before.json / after.json in `dir`: all_reduce at 1 MiB unchanged, at 4 MiB 10% slower, and an
// all_gather row that went missing.
void regressionFixture(const fs::path& dir) {
  write(dir, "before.json",
        {measured(Collective::AllReduce, kMiB, steady(100)), measured(Collective::AllReduce, 4 * kMiB, steady(400)),
         row(Collective::AllGather, kMiB, 100)});
  write(dir, "after.json", {measured(Collective::AllReduce, kMiB, steady(100.5)), measured(Collective::AllReduce, 4 * kMiB, steady(400 / 0.9))});
}

int count(const std::string& text, const std::string& what) {
  int n = 0;
  for (std::size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
  return n;
}

TEST(CcreportCli, PassExitsZero) {
  const auto dir = scratch();
  write(dir, "a.json", {measured(Collective::AllReduce, kMiB, steady(100))});
  write(dir, "b.json", {measured(Collective::AllReduce, kMiB, steady(101))});
  const Result r = ccreport(dir, "compare --baseline a.json --current b.json");
  EXPECT_EQ(r.exit, 0) << r.err;
  EXPECT_EQ(r.out.substr(0, r.out.find('\n')), "PASS: 0 regressed, 0 missing, 1 unchanged, 0 improved, 0 new");
  EXPECT_EQ(r.out.find('\033'), std::string::npos);  // not a terminal: no colour
}

TEST(CcreportCli, RegressionAndMissingExitOne) {
  const auto dir = scratch();
  regressionFixture(dir);
  Result r = ccreport(dir, "compare --baseline before.json --current after.json -q");
  EXPECT_EQ(r.exit, 1);
  EXPECT_EQ(r.out,
            "FAIL: 1 regressed, 1 missing, 1 unchanged, 0 improved, 0 new; worst: all_reduce float sum, mpi/native, 4 ranks, 4 MiB, "
            "out of place: busbw -10.0% (15.73 -> 14.15 GB/s, U test p=6.8e-08)\n");
  // Allowing the missing row leaves the regression.
  EXPECT_EQ(ccreport(dir, "compare --baseline before.json --current after.json --allow-missing").exit, 1);
  // A higher threshold and allowed misses: a pass.
  EXPECT_EQ(ccreport(dir, "compare --baseline before.json --current after.json --allow-missing --threshold 15").exit, 0);
}

// Training measurements compare step by step: a Megatron-LM log of 12 iterations against one 10%
// slower regresses (U test), against itself passes; the warm-up interval is left out.
TEST(CcreportCli, TrainingStepsRegressLikeRows) {
  const auto dir = scratch();
  auto megatronLog = [&](const std::string& name, double factor) {
    std::ofstream out(dir / name);
    for (int i = 1; i <= 12; ++i) {
      const double ms = (i == 1 ? 5000.0 : 1000.0 + 7 * (i % 5)) * factor;  // the first interval: warm-up
      out << fmt::format(" iteration {:8d}/    1000 | consumed samples: {:12d} | elapsed time per iteration (ms): {:.1f} | "
                         "global batch size:    16 | lm loss: 9.0E+00 |\n",
                         10 * i, 160 * i, ms);
    }
  };
  megatronLog("before.log", 1.0);
  megatronLog("after.log", 1.1);
  Result r = ccreport(dir, "compare --baseline before.log --current after.log -q");
  EXPECT_EQ(r.exit, 1) << r.err;
  EXPECT_EQ(r.out.rfind("FAIL training step: median 1.014 s -> 1.115 s (+10.0%), U test p = ", 0), 0u) << r.out;
  r = ccreport(dir, "compare --baseline before.log --current before.log --json same.json");
  EXPECT_EQ(r.exit, 0) << r.err;
  const Json same = Json::parse(slurp(dir / "same.json"));
  EXPECT_EQ(same.at("counts").at("current_steps"), 11);  // 12 less the warm-up
  // A higher threshold passes the slower run.
  EXPECT_EQ(ccreport(dir, "compare --baseline before.log --current after.log --threshold 15").exit, 0);
  // A file that is neither results nor a training measurement is one line, exit 2.
  std::ofstream(dir / "notes.txt") << "hello\n";
  r = ccreport(dir, "compare --baseline before.log --current notes.txt");
  EXPECT_EQ(r.exit, 2);
  EXPECT_EQ(count(r.err, "\n"), 1) << r.err;
}

// ccreport accuracy on training records: each predicted from the settings it carries, its median
// step compared, the gate as for rows.
TEST(CcreportCli, TrainingAccuracyGate) {
  const auto dir = scratch();
  std::ofstream(dir / "run.json") << R"({"schema": "cclab.training", "version": 1, "format": "cclab",
      "steps": [{"index": 0, "seconds": 9.0}, {"index": 1, "seconds": 1.0}, {"index": 2, "seconds": 1.0}],
      "settings": {"model": "gpt2", "cluster": "dgx-a100", "gpus": 8, "global-batch": 64}})";
  Result r = ccreport(dir, "accuracy --measured run.json --json acc.json");
  ASSERT_EQ(r.exit, 0) << r.err;
  const Json acc = Json::parse(slurp(dir / "acc.json"));
  const Json& row = acc.at("training").at(0);
  EXPECT_DOUBLE_EQ(row.at("measured_s").get<double>(), 1.0);  // the median after the warm-up step
  const double error = row.at("error_pct").get<double>();
  EXPECT_NEAR(error, 100 * (row.at("predicted_s").get<double>() - 1), 0.051);  // as printed, one decimal
  const double limit = std::abs(error);
  EXPECT_EQ(ccreport(dir, fmt::format("accuracy --measured run.json --max-median-error {}", limit + 0.5)).exit, 0);
  r = ccreport(dir, fmt::format("accuracy --measured run.json --max-median-error {}", limit - 0.5));
  EXPECT_EQ(r.exit, 1);
  EXPECT_EQ(r.out.rfind("FAIL 1 training record: median |step error| ", 0), 0u) << r.out;
  r = ccreport(dir, "accuracy --measured run.json --predicted run.json");
  EXPECT_EQ(r.exit, 2);
  EXPECT_NE(r.err.find("predicted from their settings"), std::string::npos) << r.err;
  // ccbench train's records leave their warm-up out already (run.warmup_steps): nothing more is
  // dropped, so ccreport reads the median ccbench train printed. Without it the first step goes.
  for (const auto& [run, median] : {std::pair{R"("run": {"warmup_steps": 1},)", 1.5}, std::pair{"", 2.0}}) {
    std::ofstream(dir / "left.json") << R"({"schema": "cclab.training", "version": 1, "format": "cclab", )" << run << R"(
        "steps": [{"index": 1, "seconds": 1.0}, {"index": 2, "seconds": 2.0}],
        "settings": {"model": "gpt2", "cluster": "dgx-a100", "gpus": 8, "global-batch": 64}})";
    r = ccreport(dir, "accuracy --measured left.json --json left-acc.json");
    ASSERT_EQ(r.exit, 0) << r.err;
    EXPECT_DOUBLE_EQ(Json::parse(slurp(dir / "left-acc.json")).at("training").at(0).at("measured_s").get<double>(), median) << run;
  }
}

TEST(CcreportCli, BadInputExitsTwoWithOneLine) {
  const auto dir = scratch();
  regressionFixture(dir);
  std::ofstream(dir / "notes.txt") << "hello\n";
  fs::copy_file(dir / "before.json", dir / "copy.json");
  write(dir, "other.json", {row(Collective::Broadcast, 8 * kMiB, 100)});
  std::ofstream(dir / "run.json") << R"({"schema": "cclab.training", "version": 1, "format": "cclab", "steps": [{"index": 1, "seconds": 1.0}]})";
  std::ofstream(dir / "broken.json") << R"({"schema": "cclab.training", "version": 9, "format": "cclab", "steps": []})";
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"compare --baseline nope.json --current after.json", "ccreport: error: results file 'nope.json': no such file\n"},
      {"compare --baseline notes.txt --current after.json", "ccreport: error: notes.txt: not a cclab results file (JSON or CSV) nor nccl-tests output\n"},
      {"compare --baseline before.json --current other.json", ""},
      {"compare --baseline before.json --current after.json --threshold -1", ""},
      {"compare --baseline before.json --current after.json --ignore speed", ""},
      {"compare --baseline before.json --current after.json --latency-bytes 64Q", ""},
      {"compare --baseline before.json", ""},
      {"accuracy --predicted before.json --measured other.json", ""},
      {"frobnicate", ""},
      {"compare --baseline before.json --current after.json --json no/such/dir/x.json", ""},
      // A run given twice would count twice (and its repeats pass for independent samples).
      {"compare --baseline before.json before.json --current after.json",
       "ccreport: error: --baseline: before.json is before.json again: give each run once\n"},
      {"compare --baseline before.json copy.json --current after.json",
       "ccreport: error: --baseline: copy.json is before.json again (the same bytes): give each run once\n"},
      {"accuracy --predicted before.json --measured after.json", ""},
      {"compare --baseline before.json --current after.json --html r.html --ccplan /no/such/ccplan",
       "ccreport: error: --ccplan /no/such/ccplan: not an executable file\n"},
      // Training measurements and collective results are compared each with its own kind.
      {"compare --baseline before.json run.json --current after.json",
       "ccreport: error: --baseline: run.json is a training measurement and before.json collective results: give one kind at a time\n"},
      {"compare --baseline run.json --current after.json",
       "ccreport: error: --baseline: training measurements, and --current collective results: compare like with like\n"},
      {"accuracy --predicted run.json --measured after.json",
       "ccreport: error: run.json: schema: \"cclab.training\" is a training measurement, not collective results\n"},
      // A broken training record says what is wrong with it, not that it is no results file.
      {"compare --baseline broken.json --current after.json",
       "ccreport: error: broken.json: version: 9 is not a version this cclab reads (1 to 1)\n"},
  };
  for (const auto& [args, message] : cases) {
    const Result r = ccreport(dir, args);
    EXPECT_EQ(r.exit, 2) << args;
    EXPECT_EQ(count(r.err, "\n"), 1) << args << ": " << r.err;
    EXPECT_EQ(r.err.rfind("ccreport: error: ", 0), 0u) << args << ": " << r.err;
    if (!message.empty()) { EXPECT_EQ(r.err, message); }
  }
  EXPECT_NE(ccreport(dir, "compare --baseline before.json --current other.json").err.find("no rows in common"), std::string::npos);
  EXPECT_NE(ccreport(dir, "accuracy --predicted before.json --measured after.json").err.find("its rows are measurements (backend"),
            std::string::npos);
}

TEST(CcreportCli, EveryOutputFormatReadsBack) {
  const auto dir = scratch();
  regressionFixture(dir);
  const Result r = ccreport(dir, "compare --baseline before.json --current after.json --json r.json --junit r.xml --markdown r.md --html r.html",
                         "CCLAB_CCPLAN= PATH=/usr/bin:/bin");
  ASSERT_EQ(r.exit, 1) << r.err;

  const Json json = Json::parse(slurp(dir / "r.json"));
  EXPECT_EQ(json["verdict"], "fail");
  EXPECT_EQ(json["counts"]["regressed"], 1);
  EXPECT_EQ(json["counts"]["missing"], 1);
  ASSERT_EQ(json["rows"].size(), 3u);
  const Json& worst = json["rows"][0];
  EXPECT_EQ(worst["status"], "regressed");
  EXPECT_EQ(worst["collective"], "all_reduce");
  EXPECT_EQ(worst["size_bytes"], 4 * kMiB);
  EXPECT_EQ(worst["nranks"], 4);
  EXPECT_EQ(worst["in_place"], false);
  EXPECT_NEAR(worst["busbw_change_pct"].get<double>(), -10, 1e-9);
  EXPECT_EQ(worst["method"], "U test");
  EXPECT_EQ(worst["baseline_samples"], 20);
  EXPECT_EQ(worst["outcome"], "failed");
  EXPECT_EQ(json["rows"][1]["status"], "missing");
  EXPECT_TRUE(json["rows"][1]["current_time_us"].is_null());
  EXPECT_EQ(json["settings"]["threshold_pct"], 5.0);

  const std::string xml = slurp(dir / "r.xml");
  EXPECT_EQ(count(xml, "<testcase "), 3);
  EXPECT_EQ(count(xml, "<failure "), 2);  // the regression and the missing row
#ifdef CCLAB_HAVE_LIBXML2
  xmlDocPtr doc = xmlReadMemory(xml.data(), static_cast<int>(xml.size()), "r.xml", nullptr, XML_PARSE_NONET);
  ASSERT_NE(doc, nullptr) << "JUnit XML is not well-formed";
  xmlXPathContextPtr ctx = xmlXPathNewContext(doc);
  auto countNodes = [&](const char* path) {
    xmlXPathObjectPtr found = xmlXPathEvalExpression(reinterpret_cast<const xmlChar*>(path), ctx);
    const int n = found->nodesetval ? found->nodesetval->nodeNr : 0;
    xmlXPathFreeObject(found);
    return n;
  };
  EXPECT_EQ(countNodes("/testsuites/testsuite/testcase"), 3);
  EXPECT_EQ(countNodes("/testsuites/testsuite/testcase/failure"), 2);
  EXPECT_EQ(countNodes("/testsuites[@tests='3' and @failures='2']"), 1);
  xmlXPathFreeContext(ctx);
  xmlFreeDoc(doc);
#endif

  const std::string md = slurp(dir / "r.md");
  EXPECT_EQ(md.rfind("## :x: ccreport compare", 0), 0u);
  std::istringstream lines(md);
  int tableLines = 0;
  for (std::string line; std::getline(lines, line);) tableLines += line.rfind("|", 0) == 0;
  EXPECT_EQ(tableLines, 2 + 3);  // header, alignment, three rows
  EXPECT_NE(md.find("| regressed | all_reduce float sum, mpi/native, 4 ranks, 4 MiB, out of place | busbw |"), std::string::npos) << md;

  const std::string html = slurp(dir / "r.html");
  EXPECT_EQ(html.rfind("<!DOCTYPE html>", 0), 0u);
  // With no ccplan on the PATH or in $CCLAB_CCPLAN, it is still found beside ccreport when the
  // GUI is built (build/bin/ccplan); otherwise the page says the charts were left out.
  if (std::getenv("CCLAB_TEST_CCPLAN") != nullptr) {
    EXPECT_NE(html.find("data:image/png;base64,"), std::string::npos);
  } else {
    EXPECT_NE(html.find("Charts were left out: ccplan was not found"), std::string::npos);
  }
  EXPECT_EQ(count(html, "<tr class=\"bad\">"), 2);
  EXPECT_EQ(html.find("http"), std::string::npos);
}

// A stand-in for `ccplan --render`: records its arguments and the series files' names, writes a
// 1x1 PNG to -o.
fs::path fakeCcplan(const fs::path& dir, int exitCode) {
  const fs::path script = dir / "ccplan";
  std::ofstream(script) << "#!/bin/sh\n"
                        << "echo \"$@\" >> '" << (dir / "ccplan-args.txt").string() << "'\n"
                        << "out=''; prev=''\n"
                        << "for a in \"$@\"; do [ \"$prev\" = -o ] && out=$a; prev=$a; done\n"
                        << "if [ " << exitCode << " -ne 0 ]; then echo 'ccplan: error: cannot draw' >&2; exit " << exitCode << "; fi\n"
                        << "printf '\\211PNG\\r\\n\\032\\n' > \"$out\"\n";
  fs::permissions(script, fs::perms::owner_all);
  return script;
}

TEST(CcreportCli, HtmlEmbedsChartsFromCcplan) {
  const auto dir = scratch();
  regressionFixture(dir);
  const fs::path fake = fakeCcplan(dir, 0);
  const Result r = ccreport(dir, "compare --baseline before.json --current after.json --html r.html --ccplan " + fake.string());
  ASSERT_EQ(r.exit, 1) << r.err;
  const std::string html = slurp(dir / "r.html");
  EXPECT_EQ(count(html, "src=\"data:image/png;base64,iVBORw0KGgo=\""), 2);  // all_reduce, all_gather
  EXPECT_EQ(html.find("left out"), std::string::npos);
  const std::string args = slurp(dir / "ccplan-args.txt");
  EXPECT_NE(args.find("/baseline.json"), std::string::npos) << args;
  EXPECT_NE(args.find("/current.json"), std::string::npos) << args;
  EXPECT_NE(args.find("--collective all_reduce --metric busbw --title all_reduce: bus bandwidth vs message size"), std::string::npos) << args;

  // Found through $CCLAB_CCPLAN too.
  fs::remove(dir / "r.html");
  EXPECT_EQ(ccreport(dir, "compare --baseline before.json --current after.json --html r.html", "CCLAB_CCPLAN=" + fake.string()).exit, 1);
  EXPECT_NE(slurp(dir / "r.html").find("data:image/png;base64,"), std::string::npos);
}

TEST(CcreportCli, HtmlSaysWhenCcplanFails) {
  const auto dir = scratch();
  regressionFixture(dir);
  const fs::path fake = fakeCcplan(dir, 2);
  EXPECT_EQ(ccreport(dir, "compare --baseline before.json --current after.json --html r.html --ccplan " + fake.string()).exit, 1);
  const std::string html = slurp(dir / "r.html");
  EXPECT_NE(html.find("Charts were left out: &#39;" + fake.string() + " --render&#39; failed (exit 2): ccplan: error: cannot draw."),
            std::string::npos)
      << html;
  EXPECT_EQ(html.find("data:image"), std::string::npos);
}

// The real renderer, where the GUI is built (CMake passes its path): one chart, a real PNG.
TEST(CcreportCli, HtmlChartsFromTheRealCcplan) {
  const char* ccplan = std::getenv("CCLAB_TEST_CCPLAN");
  if (ccplan == nullptr || *ccplan == '\0') GTEST_SKIP() << "ccplan is not built (no Qt)";
  const auto dir = scratch();
  write(dir, "before.json", {row(Collective::AllReduce, kMiB, 100), row(Collective::AllReduce, 4 * kMiB, 400)});
  write(dir, "after.json", {row(Collective::AllReduce, kMiB, 100), row(Collective::AllReduce, 4 * kMiB, 450)});
  const Result r = ccreport(dir, fmt::format("compare --baseline before.json --current after.json --html r.html --ccplan '{}'", ccplan),
                            "QT_QPA_PLATFORM=offscreen");
  ASSERT_EQ(r.exit, 1) << r.err;
  const std::string html = slurp(dir / "r.html");
  EXPECT_EQ(count(html, "src=\"data:image/png;base64,iVBORw0KGgo"), 1) << html.substr(0, 2000);
  EXPECT_EQ(html.find("left out"), std::string::npos);
}

TEST(CcreportCli, AccuracyGate) {
  const auto dir = scratch();
  const Json config = {{"algo", "native"}, {"implementation", "mpi"}};
  write(dir, "predicted.json", {row(Collective::AllReduce, kMiB, 110, {}, "sim"), row(Collective::AllReduce, 4 * kMiB, 380, {}, "sim")}, "ccsim",
        config);
  write(dir, "measured.json", {row(Collective::AllReduce, kMiB, 100), row(Collective::AllReduce, 4 * kMiB, 400)});
  Result r = ccreport(dir, "accuracy --predicted predicted.json --measured measured.json --max-median-error 10 --max-error 12 --json a.json --junit a.xml");
  EXPECT_EQ(r.exit, 0) << r.err;
  EXPECT_EQ(r.out.substr(0, r.out.find('\n')),
            "PASS: median |error| 7.5% (limit 10%), max |error| 10.0% (limit 12%) over 2 rows; 0 unpredicted; worst: all_reduce float "
            "sum, mpi/native, 4 ranks, 1 MiB, out of place: +10.0%");
  const Json json = Json::parse(slurp(dir / "a.json"));
  EXPECT_EQ(json["command"], "accuracy");
  EXPECT_NEAR(json["counts"]["median_abs_error_pct"].get<double>(), 7.5, 1e-9);
  EXPECT_EQ(json["ranges"].back()["range"], "all");
  EXPECT_NEAR(json["rows"][0]["error_pct"].get<double>(), 10, 1e-9);
  EXPECT_EQ(count(slurp(dir / "a.xml"), "<testcase "), 2 + 2);  // the two checks, the two rows

  r = ccreport(dir, "accuracy --predicted predicted.json --measured measured.json --max-median-error 5");
  EXPECT_EQ(r.exit, 1);
  EXPECT_EQ(r.out.rfind("FAIL: median |error| 7.5% (limit 5%)", 0), 0u) << r.out;
}

}  // namespace
}  // namespace cclab::report
