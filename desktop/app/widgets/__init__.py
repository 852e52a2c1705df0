"""Reusable widgets, one per module: the plots of the Charts and Probe screens, the table delegates and a
scroll area.

    timeline_plot.py, hour_profile_plot.py, heatmap_plot.py, cdf_plot.py   the Charts screen's plots
    live_rtt_plot.py     the Probe screen's live RTT chart
    sparkline.py         the live table's per-target sparkline delegate
    line_type_badge.py   the line-type badge delegate and its colours (CN2 GIA, BGP, …)
    form_scroll_area.py  a scroll area never narrower than the form in it
    screen_fit.py        a dialog's size held to its screen (1366×768 laptops)
"""
