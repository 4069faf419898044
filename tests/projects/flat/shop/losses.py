def contrastive(a, b):
    d = (a - b).pow(2).sum(dim=-1)
    if d.max() > 4.0:  # graph break
        d = d.clamp(max=4.0)
    return d.mean()


def l2(a, b):
    return (a - b).pow(2).mean()
