"""Code: the Triton source of every kernel, any segment as a standalone definition script, and the fusion
as a standalone benchmark script."""

import streamlit as st

from hfuse.codegen.provenance import computed_values, value_lines
from hfuse.errors import HfuseError
from hfuse.export import segment_script
from hfuse.tools.bench_script import bench_script
from hfuse.tools.triton_ir import STAGES, TARGET, triton_irs
from hfuse.viz import group_title
from ui import navigation, pipeline, state, views
from ui.literal import literal

TRITON_IRS = (
    "triton_irs"  # (text, strategy, outputs, segment) and each kernel's launches, as Triton lowers them
)
LINKED_VIEW_HEIGHT = 640  # pixels; the diagram and the source scroll inside it
STAGE_TITLES = {"ttir": "TTIR", "ttgir": "TTGIR", "llir": "LLVM IR", "ptx": "PTX"}


def lowering(kernel_name: str, key: tuple, compiled) -> None:
    """The kernel as Triton lowers it for an H200, compiled on request for every kernel of the fusion."""
    st.markdown(f"**Triton's lowering for {TARGET}** (H100, H200): its IRs, pass by pass down to PTX")
    shown = st.session_state.get(TRITON_IRS)
    if shown is None or shown[0] != key:
        if not st.button(f"Compile for {TARGET}", key="compile_triton_irs", icon=":material/memory:"):
            st.caption("Triton compiles every kernel of the fusion in a separate process: a few seconds.")
            return
        with st.spinner(f"Compiling the kernels for {TARGET}..."):
            try:
                (launches,) = triton_irs([compiled])
            except HfuseError as err:
                st.error(literal(str(err)))
                return
        shown = st.session_state[TRITON_IRS] = (key, launches)
    launches = [launch for launch in shown[1] if launch.kernel in (kernel_name, f"{kernel_name}_partials")]
    for launch in launches:
        if launch.held is not None:
            st.caption(launch.held)
        tabs = st.tabs([f"{STAGE_TITLES[stage]} of {launch.kernel}" for stage in STAGES])
        for tab, stage in zip(tabs, STAGES, strict=True):
            ir = launch.irs[stage]
            tab.caption(f"{len(ir.splitlines()):,} lines")
            tab.code(ir, language="llvm" if stage in ("llir", "ttir", "ttgir") else None, line_numbers=True)


def benchmark_download(container, text: str, compiled) -> None:
    """The fusion's kernels with torch beside them, as a Python file that needs torch and Triton only."""
    try:
        script = bench_script(pipeline.script_of(text, state.segment()), compiled)
    except HfuseError as err:
        container.caption(f"No benchmark script: {literal(err.reason)}")
        return
    container.download_button(
        "Benchmark script",
        script,
        file_name="bench_fusion.py",
        mime="text/x-python",
        key="download_bench_script",
        icon=":material/speed:",
        help="One Python file that builds inputs of the fusion's shapes, runs these kernels, a clone of the "
        "same bytes and (with hfuse installed) torch eager and torch.compile, and prints times and GB/s: "
        "`python bench_fusion.py --device cuda`, or `TRITON_INTERPRET=1 python bench_fusion.py --device cpu`",
        width="stretch",
    )


def linked_view(key: tuple[str, str, str, int]) -> None:
    """The segmentation diagram beside every kernel's source, linked both ways by clicks."""
    with st.expander("Linked view: click a node of the diagram or a line of a kernel", expanded=True):
        page = pipeline.linked_view_of(*key)
        if page is None:
            st.caption("The linked view needs graphviz's `dot` program, which this server lacks.")
            return
        st.caption(
            "A value or an op shows the kernel that computes it with its lines marked; a kernel's box shows "
            "its source; a line marks the values it computes or uses in the diagram."
        )
        st.iframe(page, height=LINKED_VIEW_HEIGHT)


st.header("Generated code")
fusion = views.current_fusion()
if fusion is not None:
    text = state.definition()
    controls = st.columns(3, vertical_alignment="bottom")
    strategy = state.option_control("strategy", controls[0])
    outputs = state.option_control("outputs", controls[1])
    try:
        compiled = pipeline.compiled_of(text, strategy, outputs, state.segment())
    except HfuseError as err:
        views.show_error(err, text)
        compiled = None
    if compiled is not None:
        benchmark_download(controls[2], text, compiled)
        groups = {group.id: group for group in compiled.segmentation.groups}
        names = pipeline.script_of(text, state.segment()).names
        linked_view((text, strategy, outputs, state.segment()))
        group_id = st.selectbox(
            "Segment",
            list(groups),
            key=f"code_segment_{strategy}_{outputs}",
            format_func=lambda g: group_title(groups[g]),
        )
        group = groups[group_id]
        if group.note:
            st.caption(group.note)
        kernel = compiled.kernel_of(group)
        source_column, export_column = st.columns([3, 2], gap="large")
        with source_column:
            if kernel is None:
                st.info(
                    "This segment launches no kernel: "
                    + (
                        "its outputs are strided views of its inputs."
                        if group.kind.value == "alias"
                        else "torch runs it."
                    )
                )
            else:
                split = (
                    f"a split reduction in {kernel.launches} launches, first " if kernel.launches > 1 else ""
                )
                st.caption(
                    f"`{kernel.name}`: {split}grid {kernel.grid}, {kernel.num_warps} warps, "
                    f"reads {', '.join(kernel.inputs)}, writes {', '.join(kernel.outputs)}"
                )
                values = [*kernel.inputs, *computed_values(kernel.source), *kernel.outputs]
                chosen = st.selectbox(
                    "Show the lines of",
                    list(dict.fromkeys(values)),
                    index=None,
                    key=f"code_value_{strategy}_{outputs}_{group.id}",
                    placeholder="an IR value: its comment, the lines that compute it and those that use it",
                    format_func=lambda name: f"{name} ({names[name]})" if name in names else name,
                )
                if chosen is None:
                    st.code(kernel.source, language="python", line_numbers=True, wrap_lines=True)
                else:
                    marked = value_lines(kernel.source, chosen)
                    where = ", ".join(map(str, marked)) or "none"
                    st.caption(f"{chosen}: lines {where}")
                    st.html(views.highlighted_code(kernel.source, set(marked)))
                st.download_button(
                    "Download kernel .py",
                    kernel.source,
                    file_name=f"{kernel.name}.py",
                    mime="text/x-python",
                    key="download_kernel",
                    icon=":material/download:",
                )
                lowering(kernel.name, (text, strategy, outputs, state.segment()), compiled)
        with export_column:
            st.markdown("**Export this segment** as a standalone definition")
            try:
                script = segment_script(compiled.scheduled, group)
            except HfuseError as err:
                st.error(f"This segment cannot be exported on its own: {literal(str(err))}")
            else:
                st.code(script, language="python", wrap_lines=True)
                st.download_button(
                    "Download segment script",
                    script,
                    file_name=f"segment_{group.id}.py",
                    mime="text/x-python",
                    key="download_segment",
                    icon=":material/download:",
                )
                st.button(
                    "Open this segment in the editor",
                    key="open_segment",
                    on_click=navigation.open_editor_with,
                    args=(script,),
                    icon=":material/edit:",
                )
