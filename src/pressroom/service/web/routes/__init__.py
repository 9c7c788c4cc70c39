"""The dashboard's routes, one module per page group; none holds SQL."""
