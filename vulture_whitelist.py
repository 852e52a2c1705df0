"""What vulture cannot see being used in `desktop/`: names Qt and pyqtgraph call or read by name, and
references kept only to keep an object alive. Nothing else belongs here: code nothing calls is deleted.

    vulture desktop tests packaging vulture_whitelist.py --min-confidence 60

reports nothing in `desktop/` (the tests and the screenshot script use the screens' test hooks, such as
`MainWindow.go_to`; the translation tool reads `checklist_words.CHECKLIST_TITLES`). Read by vulture only,
never imported by linkvet."""

# ruff: noqa: B018 (each line names an attribute so that vulture counts it as used)

from vulture.whitelist_utils import Whitelist

_ = Whitelist()

# Qt virtual methods, called by Qt
_.eventFilter  # QObject.eventFilter (desktop/app/main.py)
_.multiData  # QAbstractItemModel.multiData (desktop/app/models/live_probe.py)
_.lessThan  # QSortFilterProxyModel.lessThan (desktop/app/models/offerings.py)
_.filterAcceptsRow  # QSortFilterProxyModel.filterAcceptsRow (desktop/app/models/offerings.py)
_.paint  # QStyledItemDelegate.paint (desktop/app/widgets/line_type_badge.py, sparkline.py)
_.headerData  # QAbstractItemModel.headerData (desktop/app/models/_table.py)
# parameters of those overrides that Qt passes and the override does not need
_.watched  # eventFilter(watched, event)
_.source_parent  # filterAcceptsRow(source_row, source_parent)

# pyqtgraph reads these attributes of its items
_.utcOffset  # DateAxisItem.utcOffset (desktop/app/widgets/timeline_plot.py)
_.picture  # AxisItem.picture: None makes the axis redraw (desktop/app/widgets/timeline_plot.py)

# kept only to keep the object alive: a SignalProxy that nobody references is collected and stops
_._mouse  # pg.SignalProxy of the plots' mouse moves (desktop/app/widgets/*_plot.py)

# the logging module reads it
_.converter  # logging.Formatter.converter (desktop/cli/schedule.py)
