"""The strict ZON reader."""
