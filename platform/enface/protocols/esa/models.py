"""ESA needs no table of its own: answers are the core's responses, attention checks live in assignment plans."""
