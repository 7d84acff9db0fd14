#include "gui/message_bar.h"

#include <QHBoxLayout>
#include <QToolButton>

namespace cclab::gui {

MessageBar::MessageBar(QWidget* parent) : QFrame(parent), label_(new QLabel(this)) {
  setFrameShape(QFrame::StyledPanel);
  label_->setWordWrap(true);
  label_->setTextInteractionFlags(Qt::TextSelectableByMouse);
  auto* close = new QToolButton(this);
  close->setText(QStringLiteral("✕"));
  close->setToolTip(tr("Dismiss this message"));
  connect(close, &QToolButton::clicked, this, &QWidget::hide);
  auto* layout = new QHBoxLayout(this);
  layout->setContentsMargins(8, 4, 4, 4);
  layout->addWidget(label_, 1);
  layout->addWidget(close);
  hide();
}

void MessageBar::showError(const QString& text) { show(text, true); }
void MessageBar::showInfo(const QString& text) { show(text, false); }

void MessageBar::show(const QString& text, bool error) {
  error_ = error;
  label_->setText(text);
  setStyleSheet(error ? QStringLiteral("MessageBar { background: #fde2e1; border: 1px solid #d62728; }")
                      : QStringLiteral("MessageBar { background: #e3f1fb; border: 1px solid #1f77b4; }"));
  QFrame::show();
}

}  // namespace cclab::gui
