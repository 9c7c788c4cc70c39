"""Prefect tasks of the campaign pipeline: one side effect each, over ``pressroom.pipeline``."""
