"""Best–Worst Scaling (BWS): annotators pick the best and the worst of N translations of a source passage."""
