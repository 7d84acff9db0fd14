#pragma once

// `ccplan --render`: the GUI's charts drawn without a display (Qt's offscreen platform) into a PNG,
// for reports and CI. A plan file draws the plan view (or, with --view, the DDP-vs-ZeRO comparison
// or a sweep of it); results files draw the collectives view with one series per file.

#include <string>
#include <vector>

namespace cclab::gui {

struct RenderOptions {
  std::vector<std::string> inputs;
  std::string output;
  std::string view;            // plan, compare, sweep, timeline, collectives ("": from the inputs)
  std::string collective;      // collectives: which one ("": the first file's first row's)
  std::string metric = "busbw";
  std::string title;
  std::string cluster;         // collectives: predictions for this cluster ("": measured only)
  std::string sweep = "gpus";  // sweep: the setting swept
  int width = 1280, height = 800;
  bool window = false;         // the whole window (settings, tabs, menus) rather than the charts alone
};

// Needs a QApplication. Returns the exit code: 0 written, 2 bad input (one line on stderr).
int render(const RenderOptions& options);

}  // namespace cclab::gui
