"""pandas, loaded when a view needs it: `import storq` and the plain arrays work without it (the
Debian package only recommends python3-pandas), and a table asked for without it says what to
install instead of failing at import."""


def pandas():
    try:
        import pandas as pd
    except ImportError as e:
        raise ImportError("storq: this view is a pandas table and pandas is not installed "
                          "(Debian: apt-get install python3-pandas)") from e
    return pd
