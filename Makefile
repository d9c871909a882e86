# Two commands set everything up on a fresh machine: `make app` and `make test`.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
# A CPU build of torch is enough without a GPU; pin it so pip does not pull a multi-GB CUDA build.
TORCH_SPEC ?= torch==2.13.0
PORT ?= 8501

.PHONY: app test lint gpu-test gpu-fuzz bench fuzz clean system-packages

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install -q --upgrade pip

$(VENV)/.installed: pyproject.toml | $(BIN)/python
	$(BIN)/pip install -q "$(TORCH_SPEC)"
	$(BIN)/pip install -q -e ".[app,test]"
	touch $@

app: $(VENV)/.installed
	$(BIN)/streamlit run app.py --server.port $(PORT) --server.headless true --browser.gatherUsageStats false

# The browser tests drive Debian's chromium and the SVG export uses graphviz's `dot`;
# install them when missing (root, as on CI).
system-packages:
	@command -v chromium >/dev/null && command -v dot >/dev/null || \
		(apt-get update -qq && apt-get install -y -qq chromium graphviz >/dev/null)

test: $(VENV)/.installed system-packages
	$(BIN)/ruff check hfuse tests app_pages ui app.py
	$(BIN)/python -m pytest -q -n 2 --dist loadgroup --timeout 600 -m "not alone"
	$(BIN)/python -m pytest -q --timeout 600 -m alone

lint: $(VENV)/.installed
	$(BIN)/ruff check hfuse tests app_pages ui app.py
	$(BIN)/ruff format --check hfuse tests app_pages ui app.py

# The long fuzzing campaign (a fixed-seed part runs in `make test`).
fuzz: $(VENV)/.installed
	$(BIN)/python -m hfuse.tools.fuzz --examples $${N:-20000} --seed $${SEED:-0} --save fuzz-failures

# On a GPU machine whose python3 has torch and Triton (nothing else is needed):
gpu-test:
	PYTHONPATH=. python3 -m pytest -q -p no:cacheprovider tests/gpu

# Random fusions at GPU sizes through every strategy, checked against torch (N fusions; see tests/fuzz_campaign.py).
gpu-fuzz:
	PYTHONPATH=. python3 tests/fuzz_campaign.py --fusions $${N:-5000} --seconds $${SECONDS_LIMIT:-540} \
		--save fuzz-failures

bench:
	PYTHONPATH=. python3 -m hfuse.tools.bench

clean:
	rm -rf $(VENV) .pytest_cache .ruff_cache
