"""Qt item models the screens read; they hold plain values handed to them, never a database connection."""
