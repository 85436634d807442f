"""Serving SlideSearch: the MCP server, the HTTP API with its search page, and the usage log they share."""
