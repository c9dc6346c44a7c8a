"""The reader-centred study (LAIT): immersive reading, questionnaires, side-by-side close reading."""

from ...campaigns.protocol import register
from .protocol import ReaderProtocol

PROTOCOL = register(ReaderProtocol())
