"""MQM error annotation: the first protocol of the campaign core (models, services, routes, the protocol)."""

from ...campaigns.protocol import register
from .protocol import MQMProtocol

PROTOCOL = register(MQMProtocol())
