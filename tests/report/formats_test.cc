#include "report/formats.h"

#include <gtest/gtest.h>

namespace cclab::report {
namespace {

// A document of two test cases, one failed, with text that needs escaping in every format.
Document sample() {
  Document doc;
  doc.command = "compare";
  doc.title = "t";
  doc.summary = "FAIL: 1 regressed | <1> & more";
  doc.failed = true;
  Table t{"rows", "Rows", {{"status", "status", Column::Shown::Everywhere, false}, {"x_pct", "x (%)"}, {"hidden", "h", Column::Shown::JsonOnly}}, {}, true};
  t.lines.push_back(Line{{text("regressed"), number(-10.04, 1), Cell{"", 7}}, "row \"a\" <b>", Tone::Bad, Outcome::Failed, "busbw -10.0% & worse"});
  t.lines.push_back(Line{{text("unchanged"), number(0.5, 1), Cell{"", 8}}, "row b", Tone::Neutral, Outcome::Passed, ""});
  doc.tables.push_back(t);
  doc.notes = {"a note"};
  return doc;
}

TEST(Formats, Base64) {
  EXPECT_EQ(base64(""), "");
  EXPECT_EQ(base64("M"), "TQ==");
  EXPECT_EQ(base64("Ma"), "TWE=");
  EXPECT_EQ(base64("Man"), "TWFu");
  EXPECT_EQ(base64(std::string("\x89PNG", 4)), "iVBORw==");
}

TEST(Formats, TerminalSummaryFirstNoColourOffTerminal) {
  const std::string out = toTerminal(sample(), false);
  EXPECT_EQ(out.substr(0, out.find('\n')), "FAIL: 1 regressed | <1> & more");
  EXPECT_EQ(out.find('\033'), std::string::npos);
  EXPECT_NE(out.find("regressed -10.0"), std::string::npos) << out;
  EXPECT_EQ(out.find(" h "), std::string::npos);  // JSON-only column
  EXPECT_NE(toTerminal(sample(), true).find("\033[31mregressed"), std::string::npos);
}

TEST(Formats, MarkdownTable) {
  const std::string md = toMarkdown(sample());
  EXPECT_NE(md.find("**FAIL: 1 regressed \\| <1> & more**"), std::string::npos) << md;
  EXPECT_NE(md.find("| status | x (%) |\n| --- | ---: |\n| regressed | -10.0 |\n| unchanged | 0.5 |\n"), std::string::npos) << md;
  EXPECT_NE(md.find("> a note"), std::string::npos);
}

TEST(Formats, JUnitCountsAndEscapes) {
  const std::string xml = toJUnit(sample());
  EXPECT_NE(xml.find("<testsuites name=\"ccreport compare\" tests=\"2\" failures=\"1\" errors=\"0\" skipped=\"0\">"), std::string::npos) << xml;
  EXPECT_NE(xml.find("name=\"row &quot;a&quot; &lt;b&gt;\""), std::string::npos) << xml;
  EXPECT_NE(xml.find("<failure message=\"busbw -10.0% &amp; worse\" type=\"regression\">"), std::string::npos) << xml;
  EXPECT_NE(xml.find("<testcase classname=\"ccreport.compare.rows\" name=\"row b\" time=\"0\"/>"), std::string::npos) << xml;
}

TEST(Formats, JsonKeepsTypedValues) {
  const Json j = toJson(sample());
  EXPECT_EQ(j["verdict"], "fail");
  EXPECT_EQ(j["rows"].size(), 2u);
  EXPECT_DOUBLE_EQ(j["rows"][0]["x_pct"].get<double>(), -10.04);
  EXPECT_EQ(j["rows"][0]["hidden"], 7);
  EXPECT_EQ(j["rows"][0]["outcome"], "failed");
  EXPECT_EQ(j["notes"][0], "a note");
}

TEST(Formats, HtmlIsSelfContained) {
  RenderedCharts none;
  none.leftOut = "ccplan was not found";
  const std::string html = toHtml(sample(), none);
  EXPECT_EQ(html.rfind("<!DOCTYPE html>", 0), 0u);
  EXPECT_NE(html.find("Charts were left out: ccplan was not found."), std::string::npos);
  EXPECT_NE(html.find("FAIL: 1 regressed | &lt;1&gt; &amp; more"), std::string::npos);
  EXPECT_EQ(html.find("http"), std::string::npos);  // nothing fetched

  RenderedCharts one;
  one.charts.push_back({"all_reduce", std::string("\x89PNG", 4)});
  EXPECT_NE(toHtml(sample(), one).find("src=\"data:image/png;base64,iVBORw==\""), std::string::npos);
}

}  // namespace
}  // namespace cclab::report
