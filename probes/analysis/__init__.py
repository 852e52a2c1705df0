"""Analysis of stored measurements: how each target, region or line type behaves over the day and at peak
hours, and the link-quality summary that scoring consumes.

Pure functions over the store's frames (no Qt, no catalogs). Figures come from the hourly rollups where
they answer exactly and from raw samples where they do not (zones with a half-hour offset, windows that
start mid-hour, the ragged ends of a period), with the definitions of `probes.stats` throughout.

    hour_of_day(store, scope, tz)          per group × local hour: RTT median/p95, loss, jitter, throughput,
                                           the delay added under load (responsiveness tests, `loads.py`)
    day_hour_matrix(store, scope, tz)      per group × local date × hour (a heatmap's cells)
    compare_peak(store, scope, windows)    peak vs off-peak with differences, intervals and a verdict
    breach_shares(store, scope, windows)   share of hours breaching loss / latency-spike thresholds
    link_summaries(store, scope, windows)  a MeasuredLink per region (and vantage point): what becomes
                                           scoring's catalogs.link_quality.LinkSummary
    vantage_scopes(store, scope)           the scope split by vantage point, as link_summaries splits it
    route_verdicts(store, scope)           each region's route check from its stored traces, for the summaries
"""

from probes.analysis.breaches import Thresholds, breach_intervals, breach_shares
from probes.analysis.compare import PeakComparison, Side, compare_peak, comparisons_frame, verdict
from probes.analysis.confidence import bootstrap_quantile_difference, newcombe_interval, wilson_interval
from probes.analysis.profile import day_hour_matrix, hour_of_day, pivot_matrix
from probes.analysis.routes import route_verdicts
from probes.analysis.scope import Scope
from probes.analysis.summary import MeasuredLink, link_summaries, vantage_scopes
from probes.errors import ScopeError, TimeZoneError

__all__ = [
    "MeasuredLink",
    "PeakComparison",
    "Scope",
    "ScopeError",
    "Side",
    "Thresholds",
    "TimeZoneError",
    "bootstrap_quantile_difference",
    "breach_intervals",
    "breach_shares",
    "compare_peak",
    "comparisons_frame",
    "day_hour_matrix",
    "hour_of_day",
    "link_summaries",
    "newcombe_interval",
    "pivot_matrix",
    "route_verdicts",
    "vantage_scopes",
    "verdict",
    "wilson_interval",
]
