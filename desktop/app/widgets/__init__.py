"""Reusable widgets: the plots of the Charts and Probe screens and the table delegates."""
