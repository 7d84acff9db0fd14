#pragma once

// A bar across the top of the window for what went wrong (a file that could not be opened, a
// layout that does not divide): in the window, not in a modal dialog, and closable.

#include <QFrame>
#include <QLabel>

namespace cclab::gui {

class MessageBar : public QFrame {
  Q_OBJECT
 public:
  explicit MessageBar(QWidget* parent = nullptr);
  void showError(const QString& text);
  void showInfo(const QString& text);
  QString text() const { return label_->text(); }
  bool isError() const { return error_; }

 private:
  void show(const QString& text, bool error);
  QLabel* label_;
  bool error_ = false;
};

}  // namespace cclab::gui
