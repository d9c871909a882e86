"""Streamlit helpers of the hfuse app (the engine, `hfuse`, never imports Streamlit)."""
