"""Contrastive ESA (cESA): one document range, every version side by side (see :mod:`enface.protocols.cesa.protocol`)."""
