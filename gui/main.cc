// ccplan: what-if planning for distributed training — the simulator's predictions as charts, with
// measured results laid over them. `ccplan [plan.json | results…]` opens the window;
// `ccplan --render <plan.json | results…> -o out.png` draws the same charts without a display.
//
// Exit codes: 0 success, 2 bad input (one line on stderr), 70 an internal error (a bug).

#include <cstdio>
#include <cstdlib>
#include <iostream>

#include <CLI/CLI.hpp>
#include <QApplication>

#include "collectives/errors.h"
#include "collectives/sizes.h"
#include "gui/main_window.h"
#include "gui/render.h"

namespace {

int run(int argc, char** argv) {
  CLI::App app{"ccplan: what-if planning for distributed training (Qt 6 Charts)", "ccplan"};
  cclab::gui::RenderOptions render;
  bool headless = false;
  std::string size = "1280x800";
  app.add_option("files", render.inputs, "a plan file (ccplan's Save plan, ccsim train's settings) or results files to open");
  app.add_flag("--render", headless, "draw the charts into a PNG without a display (Qt's offscreen platform) and exit");
  app.add_option("-o,--output", render.output, "--render: the PNG to write");
  app.add_option("--view", render.view, "--render: plan, compare (DDP vs ZeRO-1/2/3), sweep, timeline or collectives (default: from the files)");
  app.add_option("--collective", render.collective, "--render of results: the collective to draw (default: the first file's)");
  app.add_option("--metric", render.metric, "--render of results: busbw or algbw")->capture_default_str();
  app.add_option("--title", render.title, "--render: the chart title");
  app.add_option("--cluster", render.cluster, "--render of results: also draw this cluster's predictions (a preset or cluster file)");
  app.add_option("--sweep", render.sweep, "--render --view sweep: the setting swept (gpus, micro-batch, global-batch, zero, tp, pp, vpp, seq)")
      ->capture_default_str();
  app.add_flag("--window", render.window, "--render: the whole window (settings form, tabs, menus), as on screen");
  app.add_option("--size", size, "--render: the image size, WIDTHxHEIGHT")->capture_default_str();
  try {
    app.parse(argc, argv);
    cclab::rejectEmptyValues(app);
    if (std::sscanf(size.c_str(), "%dx%d", &render.width, &render.height) != 2) throw CLI::ValidationError("--size", "must be WIDTHxHEIGHT");
    if (!headless && !render.output.empty()) throw CLI::ValidationError("-o", "is for --render");
  } catch (const CLI::CallForHelp&) {
    std::cout << app.help();
    return 0;
  } catch (const CLI::ParseError& e) {
    std::fprintf(stderr, "ccplan: error: %s\n", e.what());
    return 2;
  }
  // Without a display (CI, reports), Qt draws offscreen.
  if (headless && std::getenv("QT_QPA_PLATFORM") == nullptr) setenv("QT_QPA_PLATFORM", "offscreen", 1);
  // Headless runs print one line on failure; Qt's own notes about the offscreen platform are noise.
  if (headless) qInstallMessageHandler([](QtMsgType type, const QMessageLogContext&, const QString& message) {
    if (type == QtCriticalMsg || type == QtFatalMsg) std::fprintf(stderr, "ccplan: %s\n", message.toUtf8().constData());
  });
  QApplication qt(argc, argv);
  QApplication::setOrganizationName("cclab");
  QApplication::setApplicationName("ccplan");
  if (headless) return cclab::gui::render(render);
  cclab::gui::MainWindow window;
  window.show();
  QStringList files;
  for (const std::string& f : render.inputs) files << QString::fromStdString(f);
  if (!files.isEmpty()) window.openFiles(files);
  return qt.exec();
}

}  // namespace

int main(int argc, char** argv) {
  try {
    return run(argc, argv);
  } catch (...) {
    return cclab::reportError("ccplan", std::current_exception());  // InputError: exit 2; a bug: exit 70
  }
}
