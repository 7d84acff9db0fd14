// What ccreport, ccsim calibrate/validate and ccplan read: results::importResults tells the formats
// apart by content; ccreport then matches the rows and judges them against themselves (compare) and
// as predictions of themselves (accuracy), through every output format.
#include "report/accuracy.h"
#include "report/compare.h"
#include "report/formats.h"
#include "results/json_reader.h"
#include "results/results.h"
#include "tests/fuzz/fuzz_target.h"

CCLAB_FUZZ_TARGET(ccreport_inputs) {
  using namespace cclab;
  fuzz::expectRefusalOrSuccess([&] {
    const results::Import imported = results::importResults(input, "fuzz");
    report::Side side;
    report::addToSide(side, imported, "fuzz");
    const report::CompareSettings settings;
    const report::CompareResult compared = report::compare(side, side, settings);
    const report::Document doc = report::compareDocument(compared, settings);
    (void)report::toTerminal(doc, false);
    (void)report::toMarkdown(doc);
    (void)report::toJUnit(doc);
    (void)results::dumpJson(report::toJson(doc), 1);
    (void)report::toHtml(doc, {});
  });
}
