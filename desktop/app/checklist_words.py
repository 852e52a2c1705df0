"""The checklist's item titles (from `catalogs/checklist.toml`), listed for the translation tool: the
screens show them through `criterion_title` (`QCoreApplication.translate("Checklist", title)`); a title not
listed here shows as the checklist file has it."""

from PySide6.QtCore import QT_TRANSLATE_NOOP, QCoreApplication

from catalogs.checklist import default_checklist

CHECKLIST_TITLES = (
    QT_TRANSLATE_NOOP("Checklist", "GPU memory fits the job"),
    QT_TRANSLATE_NOOP("Checklist", "Enough GPUs"),
    QT_TRANSLATE_NOOP("Checklist", "Within budget"),
    QT_TRANSLATE_NOOP("Checklist", "NVLink/NVSwitch between the GPUs of a node"),
    QT_TRANSLATE_NOOP("Checklist", "Bandwidth between nodes"),
    QT_TRANSLATE_NOOP("Checklist", "InfiniBand or RoCE between nodes"),
    QT_TRANSLATE_NOOP("Checklist", "RDMA on the training fabric"),
    QT_TRANSLATE_NOOP("Checklist", "Lossless Ethernet for RoCE"),
    QT_TRANSLATE_NOOP("Checklist", "Local NVMe"),
    QT_TRANSLATE_NOOP("Checklist", "Shared parallel file system"),
    QT_TRANSLATE_NOOP("Checklist", "Storage/management NIC of at least 10 Gbit/s"),
    QT_TRANSLATE_NOOP("Checklist", "Management network separate from the training network"),
    QT_TRANSLATE_NOOP("Checklist", "Out-of-band management (BMC/IPMI)"),
    QT_TRANSLATE_NOOP("Checklist", "Power redundancy"),
    QT_TRANSLATE_NOOP("Checklist", "Cooling"),
    QT_TRANSLATE_NOOP("Checklist", "Line quality from the team's office (measured, peak hours)"),
    QT_TRANSLATE_NOOP("Checklist", "Latency under load (responsiveness, bufferbloat)"),
    QT_TRANSLATE_NOOP("Checklist", "Claimed line type matches the measured route"),
    QT_TRANSLATE_NOOP("Checklist", "DDoS protection"),
    QT_TRANSLATE_NOOP("Checklist", "Room to grow"),
    QT_TRANSLATE_NOOP("Checklist", "Price of the planned cluster"),
    QT_TRANSLATE_NOOP("Checklist", "Price per effective BF16 TFLOP"),
    QT_TRANSLATE_NOOP("Checklist", "Delivery time"),
    QT_TRANSLATE_NOOP("Checklist", "Support and SLA"),
)


def criterion_title(criterion: str) -> str:
    """The checklist item's title in the current language (the checklist file's English title otherwise)."""
    titles = {c.id: c.title for c in default_checklist().criterion}
    title = titles.get(criterion, criterion)
    return QCoreApplication.translate("Checklist", title)
